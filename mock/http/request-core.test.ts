import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import type { CoreAnswer, CoreRequest } from './exchange.ts';
import { isPromise } from './request-core.ts';

const ADDRESS = 'TAcN9gFvXZAxsWQQzWWbydBmscBHnEi5nZ';

/** A request as a transport hands it to the core, its body (if any) already read. */
function plain(method: string, target: string, body?: string): CoreRequest {
  const bytes = body === undefined ? undefined : new TextEncoder().encode(body);
  const headers: Record<string, string> = { 'api-key': 'demo-key' };
  if (bytes) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(bytes.byteLength);
  }
  return {
    method,
    target,
    header: (name) => headers[name],
    hasBody: bytes !== undefined,
    body: () => Promise.resolve(bytes ?? new Uint8Array(0)),
    bodyIfRead: () => bytes,
    started: performance.now(),
  };
}

describe('the request core', () => {
  it('answers a read in the turn it arrived, with no promise to wait for', () => {
    const sim = createSimulator({ clock: 'manual' });
    const answer = sim.core.handle(plain('GET', '/v1/tron/price?rentalCount=65000&period=1h'));
    expect(isPromise(answer)).toBe(false);
    expect((answer as CoreAnswer).status).toBe(200);
    expect(String((answer as CoreAnswer).body)).toMatch(/^\{"code":0,/);
  });

  it('answers an order whose body was read in the same turn, and journals it before handing the answer back', () => {
    const sim = createSimulator({ clock: 'manual' });
    const answer = sim.core.handle(
      plain('POST', '/v1/tron/order', `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`),
    );
    expect(isPromise(answer)).toBe(false);
    expect((answer as CoreAnswer).status).toBe(200);
    const [entry] = sim.journal.list({ limit: 1 });
    expect(entry).toMatchObject({ operation: 'createOrder', status: 200 });
    expect(entry!.body).toBe(`pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`);
  });

  it('waits for a body nobody has read yet, and then answers as it would have', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const request = plain('POST', '/v1/tron/order', `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`);
    const unread: CoreRequest = { ...request, bodyIfRead: () => undefined };
    const answer = sim.core.handle(unread);
    expect(isPromise(answer)).toBe(true);
    expect((await answer).status).toBe(200);
    expect(sim.journal.list({ limit: 1 })[0]).toMatchObject({ operation: 'createOrder', status: 200 });
  });

  it('answers a rejection in the turn it arrived as well', () => {
    const sim = createSimulator({ clock: 'manual' });
    const answer = sim.core.handle(plain('GET', '/v1/tron/price?rentalCount=65000&period=7y'));
    expect(isPromise(answer)).toBe(false);
    expect((answer as CoreAnswer).status).toBe(400);
  });

  it('hands the answer to the transport before its observers take their note, in the same turn', () => {
    const sim = createSimulator({ clock: 'manual' });
    const seen: Array<{ status: number; journaled: number }> = [];
    const answer = sim.core.handle(plain('GET', '/v1/tron/price?rentalCount=65000&period=1h'), (sent) =>
      seen.push({ status: sent.status, journaled: sim.journal.size }),
    );
    expect(seen).toEqual([{ status: 200, journaled: 0 }]);
    expect(isPromise(answer)).toBe(false);
    expect(sim.journal.size).toBe(1);
  });

  it('takes the note even when the transport fails to send, and then reports the failure', () => {
    const sim = createSimulator({ clock: 'manual' });
    expect(() =>
      sim.core.handle(plain('GET', '/v1/account'), () => {
        throw new Error('socket gone');
      }),
    ).toThrow('socket gone');
    expect(sim.journal.list({ limit: 1 })[0]).toMatchObject({ operation: 'getAccount', status: 200 });
  });
});
