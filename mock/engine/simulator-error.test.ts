import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { SimulatorError } from './simulator-error.ts';

/** The frames of a stack trace: its lines after the message. */
const framesOf = (error: Error): string[] => (error.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l));

describe('SimulatorError', () => {
  it('keeps the stack trace of an error a program can catch', () => {
    expect(framesOf(new SimulatorError('orderNotFound', 'No such order.')).length).toBeGreaterThan(0);
  });

  it('carries its kind, code, status, message and extra headers', () => {
    const error = new SimulatorError('rateLimited', 'Too many requests.', { 'retry-after': '1' });
    expect(error).toBeInstanceOf(SimulatorError);
    expect(error).toMatchObject({
      kind: 'rateLimited',
      code: 10003,
      status: 429,
      message: 'Too many requests.',
    });
    expect(error.headers).toEqual({ 'retry-after': '1' });
  });

  it("answers the pipeline's own rejections with their envelope and status", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const unknown = await sim.fetch(
      new Request('http://sim.test/v1/tron/price?rentalCount=65000&period=1h', {
        headers: { 'API-KEY': 'nobody' },
      }),
    );
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({
      code: 10002,
      msg: expect.stringContaining('Unknown API key'),
      data: null,
    });
    const nowhere = await sim.fetch(
      new Request('http://sim.test/v1/tron/nothing', { headers: { 'API-KEY': 'demo-key' } }),
    );
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toMatchObject({
      code: 40400,
      msg: expect.stringContaining('No such path'),
      data: null,
    });
  });
});
