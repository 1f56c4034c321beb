import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { parserError } from './client-errors.ts';
import { errorEnvelopeText, unexpectedError } from './error-boundary.ts';

describe('the error boundary wording', () => {
  it('words an unexpected error as a 500 with code 50000, one full stop, whatever was thrown', () => {
    expect(unexpectedError(new Error('unknown outcome.'))).toMatchObject({
      status: 500,
      code: 50000,
      message: 'Unexpected simulator error: unknown outcome. This is a simulator bug; please report it.',
    });
    expect(unexpectedError('a string').message).toContain('a string');
    const hostile = {
      toString: () => {
        throw new Error('no');
      },
    };
    expect(unexpectedError(hostile).message).toContain('unprintable error');
  });

  it('still writes the envelope when the clock cannot be read', () => {
    const sim = createSimulator({ clock: 'manual' });
    sim.engine.clock.now = () => {
      throw new RangeError('Invalid time value');
    };
    const body = JSON.parse(errorEnvelopeText(sim.engine, unexpectedError(new Error('x'))));
    expect(body).toMatchObject({ code: 50000, time: expect.stringMatching(/^\d+$/), data: null });
  });

  it("maps Node's parser errors to the envelope's statuses", () => {
    expect(parserError(Object.assign(new Error(), { code: 'HPE_HEADER_OVERFLOW' }))).toMatchObject({
      status: 431,
      code: 43100,
    });
    expect(parserError(Object.assign(new Error(), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))).toMatchObject({
      status: 408,
      code: 40800,
    });
    expect(parserError(Object.assign(new Error(), { code: 'HPE_UNEXPECTED_CONTENT_LENGTH' }))).toMatchObject({
      status: 400,
      code: 20003,
    });
    expect(parserError(Object.assign(new Error(), { code: 'HPE_INVALID_METHOD' }))).toMatchObject({
      status: 400,
      code: 20003,
    });
  });
});
