/**
 * `Prefer: outcome=…`, the kit's extension after Prism's `Prefer: code=…`: one request
 * forces its own outcome (an order's COMPLETED or FAILED, or a rejection of the error
 * catalogue), is journaled with it, and is refused in proxy mode, never forwarded.
 */
import { describe, expect, it } from 'vitest';
import { PREFER_OUTCOMES } from '../../src/generated/lists.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { preferredOutcome } from './prefer-outcome.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const ORDER = `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`;
const KEY = { 'API-KEY': 'demo-key' };

async function send(sim: Simulator, path: string, prefer: string | undefined, method = 'GET') {
  const res = await sim.fetch(`http://sim${path}`, {
    method,
    headers: { ...KEY, ...(prefer === undefined ? {} : { Prefer: prefer }) },
  });
  return { status: res.status, body: (await res.json()) as { code: number; msg: string; data: any } };
}

/** The status an order has an hour on, its lifecycle over. */
async function settledStatus(sim: Simulator, orderId: string): Promise<string> {
  sim.advance(3_600_000);
  return (await send(sim, `/v1/tron/history?orderId=${orderId}`, undefined)).body.data.status;
}

describe('Prefer: outcome on a simulator request', () => {
  it('fails the one order that asks for FAILED, with no rule used up, while the next follows the failure rate', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'fast' });
    await sim.app.request('/_sim/rules', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: { outOrderNo: 'ruled' }, outcome: 'COMPLETED' }),
    });
    const asked = await send(sim, `${ORDER}&outOrderNo=ruled`, 'outcome=FAILED', 'POST');
    expect(asked.status).toBe(200);
    const plain = await send(sim, `${ORDER}&outOrderNo=plain`, undefined, 'POST');
    // A failed order is refunded in the end.
    expect(await settledStatus(sim, asked.body.data.id)).toBe('REFUNDED');
    expect(await settledStatus(sim, plain.body.data.id)).toBe('COMPLETED');
    expect(sim.engine.rules.list()[0]!.used).toBe(0);
    const entry = sim.journal.list().find((e) => e.operation === 'createOrder')!;
    expect(entry.outcomeAsked).toBe('FAILED');
  });

  it('completes an order that asks for COMPLETED although every order fails by the rate', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'fast' });
    sim.engine.updateSettings({ failureRate: 1 });
    const asked = await send(sim, ORDER, 'outcome=COMPLETED', 'POST');
    expect(await settledStatus(sim, asked.body.data.id)).toBe('COMPLETED');
  });

  it('answers a rejection asked for as the error catalogue words it, and changes nothing', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const before = sim.engine.authenticate('demo-key')!.ledger.TRX.frozen;
    const asked = await send(sim, ORDER, 'return=minimal, outcome=insufficientBalance', 'POST');
    expect(asked.status).toBe(402);
    expect(asked.body.code).toBe(30001);
    expect(asked.body.msg).toMatch(/Prefer: outcome=insufficientBalance/);
    expect(sim.engine.storedOrders).toBe(0);
    expect(sim.engine.authenticate('demo-key')!.ledger.TRX.frozen).toBe(before);
    const entry = sim.journal.list().at(-1)!;
    expect([entry.outcomeAsked, entry.status]).toEqual(['insufficientBalance', 402]);
    // The catalogue's own wording wins, as for any rejection.
    await sim.app.request('/_sim/config', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ errors: { orderNotFound: { status: 200, code: 404, msg: 'no such order' } } }),
    });
    const renamed = await send(sim, '/v1/account', 'outcome="orderNotFound"');
    expect([renamed.status, renamed.body.code, renamed.body.msg]).toEqual([200, 404, 'no such order']);
  });

  it('refuses a value the spec does not list, naming the header and every accepted value', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const refused = await send(sim, ORDER, 'outcome=REFUNDED', 'POST');
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe(
      `Header 'Prefer' asks for outcome 'REFUNDED', which is none of: ${PREFER_OUTCOMES.join(', ')}.`,
    );
    expect(sim.engine.storedOrders).toBe(0);
  });

  it("refuses an order's outcome on an operation that makes no order", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const refused = await send(sim, '/v1/account', 'outcome=COMPLETED');
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/applies to createOrder only/);
  });

  it('ignores a Prefer header without an outcome', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expect((await send(sim, '/v1/account', 'return=minimal')).status).toBe(200);
    expect(sim.journal.list().at(-1)!.outcomeAsked).toBeUndefined();
  });
});

describe('Prefer: outcome in proxy mode', () => {
  it('is refused with an envelope naming the mode, and nothing reaches the upstream', async () => {
    const reached: string[] = [];
    const upstream = createSimulator({ clock: 'manual' });
    const proxy = createSimulator({
      clock: 'manual',
      proxy: {
        upstream: 'http://upstream.test',
        allowSpend: true,
        fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
          reached.push(String(input instanceof Request ? input.url : input));
          return upstream.fetch(input, init);
        }) as typeof fetch,
      },
    });
    const refused = await send(proxy, ORDER, 'outcome=FAILED', 'POST');
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/refused in proxy mode/);
    expect(refused.body.msg).toMatch(/never forwarded/);
    expect(reached).toEqual([]);
    expect(upstream.engine.storedOrders).toBe(0);
  });

  it('is refused in replay mode too, by the same rule', () => {
    expect(() => preferredOutcome('outcome=FAILED', 'replay', 'createOrder')).toThrow(/replay mode/);
  });
});
