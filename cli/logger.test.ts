import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

const fixed = () => new Date('2025-03-12T17:50:09.000Z');

function capture(format: 'pretty' | 'json', quiet = false) {
  const out: string[] = [];
  const err: string[] = [];
  const log = createLogger({ format, quiet, out: (l) => out.push(l), err: (l) => err.push(l), now: fixed });
  return { log, out, err };
}

describe('createLogger', () => {
  it('writes one JSON object per line with --log json', () => {
    const { log, out } = capture('json');
    log.request({
      method: 'GET',
      path: '/v1/account',
      status: 200,
      durationMs: 1.25,
      operation: 'getAccount',
    });
    expect(out.map((l) => JSON.parse(l))).toEqual([
      {
        time: '2025-03-12T17:50:09.000Z',
        level: 'info',
        msg: 'request',
        method: 'GET',
        path: '/v1/account',
        status: 200,
        durationMs: 1.25,
        operation: 'getAccount',
      },
    ]);
  });

  it('writes a readable line per request by default', () => {
    const { log, out } = capture('pretty');
    log.request({
      method: 'POST',
      path: '/v1/tron/order',
      status: 503,
      durationMs: 2,
      operation: 'createOrder',
      fault: 'fault-1',
    });
    expect(out).toEqual(['17:50:09.000 POST /v1/tron/order 503 2.0ms createOrder fault fault-1']);
  });

  it('prints the banner as lines for people and as one object for machines', () => {
    const pretty = capture('pretty');
    pretty.log.banner(['line one', 'line two'], 'listening', { url: 'http://x' });
    expect(pretty.out).toEqual(['line one', 'line two']);
    const json = capture('json');
    json.log.banner(['line one'], 'listening', { url: 'http://x' });
    expect(JSON.parse(json.out[0]!)).toMatchObject({ msg: 'listening', url: 'http://x' });
  });

  it('keeps only warnings and errors with --quiet, on stderr', () => {
    const { log, out, err } = capture('pretty', true);
    log.info('hello');
    log.request({ method: 'GET', path: '/', status: 404, durationMs: 1 });
    log.banner(['x'], 'listening', {});
    log.error('could not save');
    expect(out).toEqual([]);
    expect(err).toEqual(['error: could not save']);
  });
});
