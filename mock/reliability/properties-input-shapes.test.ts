/**
 * Property-based tests over a real socket for the shapes of input that once stopped or
 * misled the server: JSON nested to any depth, and any Host header. Whatever
 * fast-check sends, the answer is a JSON envelope, never a 5xx, and the server keeps
 * answering.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../simulator.ts';
import { exchange, listen, request, type RawResponse } from '../test-support/socket-test-support.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

let sim: Simulator;
let port: number;
let close: () => Promise<void>;
const reported: unknown[] = [];

beforeAll(async () => {
  sim = createSimulator({
    clock: 'manual',
    timing: 'instant',
    onUnexpectedError: (error) => reported.push(error),
  });
  ({ port, close } = await listen(sim, { allowedHosts: 'all' }));
});
afterAll(() => close());

function expectEnvelope(response: RawResponse | undefined, context: string): void {
  expect(response, context).toBeDefined();
  expect(response!.status, context).toBeLessThan(500);
  expect(response!.headers['content-type'], context).toContain('application/json');
  expect(response!.json, context).toMatchObject({ code: expect.any(Number), time: expect.any(String) });
}

async function expectStillAnswering(): Promise<void> {
  const { responses } = await exchange(
    port,
    request('GET /_sim/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close'),
  );
  expect(responses[0]).toMatchObject({ status: 200, json: { ok: true } });
}

/** A JSON text nested `depth` levels deep in arrays and objects, in the order `shape` gives. */
function nestedJson(depth: number, shape: boolean[], leaf: string): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const asObject = shape[i % Math.max(1, shape.length)] ?? false;
    open += asObject ? '{"k":' : '[';
    close = (asObject ? '}' : ']') + close;
  }
  return open + leaf + close;
}

const JSON_ROUTES = [
  ['POST', '/_sim/clock/advance', 'ms'],
  ['PATCH', '/_sim/config', 'failureRate'],
  ['POST', '/_sim/accounts', 'referralCount'],
  ['POST', '/_sim/accounts/me/deposit', 'trx'],
  ['POST', '/_sim/rules', 'outcome'],
  ['POST', '/_sim/faults', 'latencyMs'],
  ['PUT', '/_sim/supply', 'energy'],
  ['PUT', `/_sim/addresses/${ADDRESS}`, 'activated'],
] as const;

describe('input shapes over a real socket', () => {
  it('answers JSON bodies nested to any depth with a 4xx envelope and keeps answering', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...JSON_ROUTES),
        fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 6000 })),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
        fc.constantFrom('1', '"x"', 'null', '', '[]'),
        fc.boolean(),
        async ([method, path, field], depth, shape, leaf, withKey) => {
          const body = `{${withKey ? '"apiKey":"prop-key",' : ''}"${field}":${nestedJson(depth, shape, leaf)}}`;
          const raw = request(
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAPI-KEY: demo-key\r\nContent-Type: application/json\r\nConnection: close`,
            body,
          );
          const { responses, error } = await exchange(port, raw);
          const context = `${method} ${path} depth ${depth}`;
          expect(error, context).toBeUndefined();
          expectEnvelope(responses[0], context);
          expect(responses[0]!.status, context).toBeGreaterThanOrEqual(400);
        },
      ),
      { numRuns: 120 },
    );
    expect(reported).toEqual([]);
    await expectStillAnswering();
  }, 120_000);

  it('answers any Host header with an envelope, never a 5xx, and routes by the target alone', async () => {
    const hostChar = fc.oneof(
      fc.constantFrom(
        ' ',
        '/',
        '?',
        '#',
        '@',
        ':',
        '[',
        ']',
        '%',
        '\\',
        '.',
        '"',
        '<',
        '\t',
        '\u00e9',
        '\u0001',
      ),
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
      fc.constantFrom('a', 'x', '1', 'localhost', '127.0.0.1', 'evil.example'),
    );
    const host = fc.array(hostChar, { maxLength: 12 }).map((parts) => parts.join(''));
    const target = fc.constantFrom(
      ['GET', '/v1/account', ''],
      ['GET', '/v1/tron/price?rentalCount=65000&period=1h', ''],
      ['GET', '/api/v1/account', ''],
      ['POST', '/v1/tron/order', `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`],
      ['POST', '/v1/tron/order', 'rentalCount=12'],
    );
    await fc.assert(
      fc.asyncProperty(host, target, async (hostValue, [method, path, body]) => {
        const head = `${method} ${path} HTTP/1.1\r\nHost: ${hostValue.replace(/[\r\n]/g, '')}\r\nAPI-KEY: demo-key\r\nConnection: close${body ? '\r\nContent-Type: application/x-www-form-urlencoded' : ''}`;
        const { responses, error } = await exchange(port, Buffer.from(request(head, body), 'latin1'));
        const context = `${method} ${path} Host ${JSON.stringify(hostValue)} ${responses[0]?.body}`;
        expect(error, context).toBeUndefined();
        expectEnvelope(responses[0], context);
        // Either Node's parser refused the header (400, code 20003) or the target was routed
        // as it would be with any Host: never a 404.
        if (responses[0]!.json.code === 20003) return;
        expect(responses[0]!.status, context).not.toBe(404);
        if (body === 'rentalCount=12') expect(responses[0]!.status, context).toBe(400);
        else expect(responses[0]!.status, context).toBe(200);
      }),
      { numRuns: 200 },
    );
    expect(reported).toEqual([]);
    await expectStillAnswering();
  }, 120_000);
});
