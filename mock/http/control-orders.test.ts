/**
 * The control plane's orders, rules, supply and addresses, and its list schemas.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { call, callGet, expectControlResponse, expectItems } from '../test-support/http-test-support.ts';
import { ADDRESS, OTHER_ADDRESS, expectError, order, statusOf, trxOf } from '../test-support/fixtures.ts';

const START_MS = 1_741_801_809_000;
const HOUR_MS = 3_600_000;

describe('GET /_sim/orders', () => {
  it("lists the key's orders newest first, with their views", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = await order(sim, ADDRESS, '&outOrderNo=a');
    sim.advance(1000);
    const second = await order(sim, OTHER_ADDRESS);
    const reply = await callGet(sim, '/_sim/orders', 'demo-key');
    expect(reply.status).toBe(200);
    expectItems(reply, 'orders', 'OrderView');
    expect(reply.body.orders.map((o: { orderId: string }) => o.orderId)).toEqual([second, first]);
    expect(reply.body.orders[1]).toMatchObject({
      orderId: first,
      outOrderNo: 'a',
      pledgeAddress: ADDRESS,
      rentalCount: 65000,
      amount: '4.23',
      currency: 'TRX',
      txId: '',
    });
  });

  it('filters by status and limits the count', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const done = await order(sim);
    sim.advance(7000);
    const open1 = await order(sim);
    const open2 = await order(sim);
    const ids = async (query: string) =>
      (await callGet(sim, `/_sim/orders${query}`, 'demo-key')).body.orders.map(
        (o: { orderId: string }) => o.orderId,
      );
    expect(await ids('?status=COMPLETED')).toEqual([done]);
    expect(await ids('?status=PENDING')).toEqual([open2, open1]);
    expect(await ids('?status=REFUNDED')).toEqual([]);
    expect(await ids('?limit=1')).toEqual([open2]);
    expect(await ids('?status=PENDING&limit=1')).toEqual([open2]);
  });

  it.each(['?status=DONE', '?limit=0', '?limit=1001', '?limit=x'])('refuses %s with 400', async (query) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await callGet(sim, `/_sim/orders${query}`, 'demo-key');
    expectError(reply, 400, 20002);
    expectControlResponse('listOrders', reply);
  });

  it('shows an account none of the orders of another', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = (await call(sim, 'POST', '/_sim/accounts', { body: {} })).body.apiKey;
    await order(sim);
    expect((await callGet(sim, '/_sim/orders', other)).body.orders).toEqual([]);
  });

  it('needs an API key', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expectError(await callGet(sim, '/_sim/orders'), 401, 10001);
  });
});

describe('GET /_sim/orders/{orderId}', () => {
  it('shows the timeline PENDING, PROCESSING, COMPLETED with the time of each step', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: {
        accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }],
        activatedAddresses: [ADDRESS],
      },
    });
    const id = await order(sim);
    const open = await callGet(sim, `/_sim/orders/${id}`, 'demo-key');
    expectControlResponse('getOrderTimeline', open);
    expect(open.body).toMatchObject({
      orderId: id,
      status: 'PENDING',
      activatedAddress: false,
      timeline: [{ status: 'PENDING', at: START_MS }],
    });
    expect(open.body.next).toEqual({ status: 'PROCESSING', at: expect.any(Number) });
    expect(open.body.next.at).toBeGreaterThan(START_MS);

    sim.advance(7000);
    const done = await callGet(sim, `/_sim/orders/${id}`, 'demo-key');
    expect(done.status).toBe(200);
    expectControlResponse('getOrderTimeline', done);
    const { timeline } = done.body;
    expect(timeline.map((s: { status: string }) => s.status)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(timeline[1].at).toBe(open.body.next.at);
    expect(timeline[0].at).toBeLessThan(timeline[1].at);
    expect(timeline[1].at).toBeLessThan(timeline[2].at);
    expect(timeline[2].at - START_MS).toBeGreaterThanOrEqual(3000);
    expect(timeline[2].at - START_MS).toBeLessThanOrEqual(6000);
    expect(done.body.next).toBeUndefined();
    expect(done.body.txId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('marks the order that activated its address, with a note on PROCESSING', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const id = await order(sim);
    sim.advance(7000);
    const reply = await callGet(sim, `/_sim/orders/${id}`, 'demo-key');
    expect(reply.body.activatedAddress).toBe(true);
    expect(reply.body.timeline[1]).toMatchObject({
      status: 'PROCESSING',
      note: expect.stringMatching(/activated/),
    });
  });

  it("answers 404 with code 40401 for an unknown id and for another account's order", async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = (await call(sim, 'POST', '/_sim/accounts', { body: {} })).body.apiKey;
    const id = await order(sim);
    const foreign = await callGet(sim, `/_sim/orders/${id}`, other);
    expectError(foreign, 404, 40401);
    expectControlResponse('getOrderTimeline', foreign);
    expectError(await callGet(sim, '/_sim/orders/OR20250312175009AAAAAAAA', 'demo-key'), 404, 40401);
  });
});

describe('/_sim/rules', () => {
  it('adds a rule with 201 and lists it, unused', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const added = await call(sim, 'POST', '/_sim/rules', {
      body: { match: { pledgeAddress: ADDRESS }, outcome: 'FAILED', delayMs: 2000, times: 1 },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ id: expect.any(String) });
    const list = await callGet(sim, '/_sim/rules');
    expect(list.status).toBe(200);
    expectItems(list, 'rules', 'Rule');
    expect(list.body.rules).toEqual([
      {
        id: added.body.id,
        match: { pledgeAddress: ADDRESS },
        outcome: 'FAILED',
        delayMs: 2000,
        times: 1,
        used: 0,
      },
    ]);
  });

  it('fails a matching order, then refunds it, and leaves other addresses alone', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'POST', '/_sim/rules', {
      body: { match: { pledgeAddress: ADDRESS }, outcome: 'FAILED', delayMs: 2000 },
    });
    const failing = await order(sim, ADDRESS);
    const fine = await order(sim, OTHER_ADDRESS);
    expect(await trxOf(sim)).toEqual({ available: '991.54', frozen: '8.46' });
    sim.advance(2000);
    const failed = await callGet(sim, `/_sim/orders/${failing}`, 'demo-key');
    expect(failed.body.status).toBe('FAILED');
    expect(failed.body.next.status).toBe('REFUNDED');
    expect(await trxOf(sim)).toEqual({ available: '991.54', frozen: '8.46' });
    sim.advance(5000);
    expect(await statusOf(sim, fine)).toBe('COMPLETED');
    expect(await statusOf(sim, failing)).toBe('REFUNDED');
    expect(await trxOf(sim)).toEqual({ available: '995.77', frozen: '0' });
    const timeline = (await callGet(sim, `/_sim/orders/${failing}`, 'demo-key')).body.timeline.map(
      (s: { status: string }) => s.status,
    );
    expect(timeline).toEqual(['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED']);
  });

  it('decides exactly `times` orders, then is used up and gone', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED', times: 2 } });
    const ids = [await order(sim), await order(sim)];
    expect((await callGet(sim, '/_sim/rules')).body.rules).toEqual([]);
    ids.push(await order(sim));
    sim.advance(10_000);
    expect([
      await statusOf(sim, ids[0]!),
      await statusOf(sim, ids[1]!),
      await statusOf(sim, ids[2]!),
    ]).toEqual(['REFUNDED', 'REFUNDED', 'COMPLETED']);
  });

  it('counts its uses while it has some left', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'COMPLETED', times: 3 } });
    await order(sim);
    expect((await callGet(sim, '/_sim/rules')).body.rules[0]).toMatchObject({ used: 1, times: 3 });
  });

  it('sets the delay from creation to the outcome with delayMs', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'COMPLETED', delayMs: 20_000 } });
    const id = await order(sim);
    sim.advance(19_999);
    expect(await statusOf(sim, id)).not.toBe('COMPLETED');
    sim.advance(1);
    expect(await statusOf(sim, id)).toBe('COMPLETED');
  });

  it('matches by outOrderNo', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'POST', '/_sim/rules', { body: { match: { outOrderNo: 'doomed' }, outcome: 'FAILED' } });
    const doomed = await order(sim, ADDRESS, '&outOrderNo=doomed');
    const other = await order(sim, ADDRESS, '&outOrderNo=lucky');
    sim.advance(7000);
    expect(await statusOf(sim, doomed)).toBe('FAILED');
    expect(await statusOf(sim, other)).toBe('COMPLETED');
  });

  it('deletes one rule, and answers 404 for a rule that is not there', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = (await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } })).body.id;
    const second = (await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'COMPLETED' } })).body.id;
    const deleted = await call(sim, 'DELETE', `/_sim/rules/${first}`);
    expect(deleted.status).toBe(200);
    expectControlResponse('deleteRule', deleted);
    expect((await callGet(sim, '/_sim/rules')).body.rules.map((r: { id: string }) => r.id)).toEqual([second]);
    const again = await call(sim, 'DELETE', `/_sim/rules/${first}`);
    expectError(again, 404, 40400, new RegExp(first));
    expectControlResponse('deleteRule', again);
  });

  it('deletes every rule at once', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } });
    await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } });
    const cleared = await call(sim, 'DELETE', '/_sim/rules');
    expectControlResponse('clearRules', cleared);
    expect(cleared.body).toEqual({ ok: true });
    expect((await callGet(sim, '/_sim/rules')).body.rules).toEqual([]);
    const id = await order(sim);
    sim.advance(7000);
    expect(await statusOf(sim, id)).toBe('COMPLETED');
  });

  it.each([
    [{}, 20001, /'outcome'/],
    [{ outcome: 'MAYBE' }, 20002, /'outcome'.*COMPLETED, FAILED/],
    [{ outcome: 'FAILED', times: 0 }, 20002, /'times'/],
    [{ outcome: 'FAILED', match: { status: 'x' } }, 20002, /'match.status'/],
  ])('refuses the rule %j with 400, naming the field', async (body, code, msg) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'POST', '/_sim/rules', { body });
    expectError(reply, 400, code, msg);
    expectControlResponse('addRule', reply);
    expect((await callGet(sim, '/_sim/rules')).body.rules).toEqual([]);
  });
});

describe('/_sim/supply', () => {
  it('is unlimited by default', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await callGet(sim, '/_sim/supply');
    expectControlResponse('getSupply', reply);
    expect(reply.body).toEqual({ energy: null, delegated: 0 });
  });

  it('fails and refunds an order beyond the supply, and takes energy back when a rental ends', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: { accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }], supply: 100_000 },
    });
    const fits = await order(sim);
    sim.advance(7000);
    expect(await statusOf(sim, fits)).toBe('COMPLETED');
    expect((await callGet(sim, '/_sim/supply')).body).toEqual({ energy: 100_000, delegated: 65_000 });

    const beyond = await order(sim);
    sim.advance(10_000);
    const refunded = await callGet(sim, `/_sim/orders/${beyond}`, 'demo-key');
    expect(refunded.body.status).toBe('REFUNDED');
    expect(refunded.body.timeline.map((s: { status: string }) => s.status)).toEqual([
      'PENDING',
      'PROCESSING',
      'FAILED',
      'REFUNDED',
    ]);
    expect(refunded.body.timeline[2].note).toMatch(/insufficient supply/);
    expect(await trxOf(sim)).toEqual({ available: '95.77', frozen: '0' });

    sim.advance(HOUR_MS);
    const after = await callGet(sim, '/_sim/supply');
    expectControlResponse('getSupply', after);
    expect(after.body).toEqual({ energy: 100_000, delegated: 0 });
  });

  // BUG: PUT /_sim/supply always answers 500 (code 50000, "schema is invalid: data/$id must
  // match pattern"). Its request body schema is written inline in control.yaml, and
  // createValidators().jsonBody (src/spec/loader.ts:207) compiles an inline schema with
  // `$id: <base>#inline-N`, an $id with a fragment that JSON Schema 2020-12 forbids.
  it('sets the supply, and an order beyond it fails and is refunded', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'PUT', '/_sim/supply', { body: { energy: 64_000 } });
    expect(reply.status).toBe(200);
    expectControlResponse('setSupply', reply);
    expect(reply.body).toEqual({ energy: 64_000, delegated: 0 });
    const id = await order(sim);
    sim.advance(10_000);
    expect(await statusOf(sim, id)).toBe('REFUNDED');
    expect(await trxOf(sim)).toEqual({ available: '1000', frozen: '0' });
  });
});

describe('/_sim/addresses', () => {
  it('reads an address it never saw as not activated', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await callGet(sim, `/_sim/addresses/${ADDRESS}`);
    expect(reply.status).toBe(200);
    expectControlResponse('getAddress', reply);
    expect(reply.body).toEqual({
      address: ADDRESS,
      activated: false,
      chain: expect.objectContaining({ exists: false }),
    });
  });

  it('records the first order to a new address as its activator, and no later one', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const first = await order(sim);
    const second = await order(sim);
    sim.advance(8000);
    const reply = await callGet(sim, `/_sim/addresses/${ADDRESS}`);
    expectControlResponse('getAddress', reply);
    const processingAt = (await callGet(sim, `/_sim/orders/${first}`, 'demo-key')).body.timeline[1].at;
    const { chain, ...record } = reply.body;
    expect(record).toEqual({
      address: ADDRESS,
      activated: true,
      activatedAt: processingAt,
      activatedByOrderId: first,
    });
    expect(chain.delegations.map((d: { orderId: string }) => d.orderId)).toEqual([first, second]);
    expect((await callGet(sim, `/_sim/orders/${second}`, 'demo-key')).body.activatedAddress).toBe(false);
    const list = await callGet(sim, '/_sim/addresses');
    expectItems(list, 'addresses', 'AddressState');
    expect(list.body.addresses).toEqual([record]);
  });

  it('lists the activated addresses of the scenario', async () => {
    const sim = createSimulator({
      clock: 'manual',
      scenario: { activatedAddresses: [ADDRESS, OTHER_ADDRESS] },
    });
    const list = await callGet(sim, '/_sim/addresses');
    expect(list.status).toBe(200);
    expectItems(list, 'addresses', 'AddressState');
    expect(list.body.addresses).toEqual([
      { address: ADDRESS, activated: true, activatedAt: START_MS },
      { address: OTHER_ADDRESS, activated: true, activatedAt: START_MS },
    ]);
  });

  it.each(['abc', 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4'])(
    'refuses the address %s with 400 on GET and PUT',
    async (address) => {
      const sim = createSimulator({ clock: 'manual' });
      const read = await callGet(sim, `/_sim/addresses/${address}`);
      expectError(read, 400, 20002, /'address'.*TRON address/);
      expectControlResponse('getAddress', read);
      const write = await call(sim, 'PUT', `/_sim/addresses/${address}`, { body: { activated: true } });
      expectError(write, 400, 20002, /'address'/);
      expectControlResponse('setAddress', write);
    },
  );

  // BUG: PUT /_sim/addresses/{address} with a valid address always answers 500 (code 50000),
  // for the reason given at PUT /_sim/supply: its inline body schema cannot be compiled
  // (src/spec/loader.ts:207). This also blocks the documented way of pre-activating an
  // address before an order.
  it('marks an address activated, so an order to it completes within 6 seconds without activation', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await call(sim, 'PUT', `/_sim/addresses/${ADDRESS}`, { body: { activated: true } });
    expect(reply.status).toBe(200);
    expectControlResponse('setAddress', reply);
    expect(reply.body).toEqual({ address: ADDRESS, activated: true, activatedAt: START_MS });
    const id = await order(sim);
    sim.advance(2000);
    expect(['PENDING', 'PROCESSING']).toContain(await statusOf(sim, id));
    sim.advance(4000);
    expect(await statusOf(sim, id)).toBe('COMPLETED');
    expect((await callGet(sim, `/_sim/orders/${id}`, 'demo-key')).body.activatedAddress).toBe(false);
  });
});

describe('the list schemas of control.yaml', () => {
  // BUG: createValidators(loadSpec('control')).response() throws "schema is invalid:
  // data/$id must match pattern" for every response schema written inline (listAccounts,
  // listOrders, listRules, addRule, listAddresses, getJournal): src/spec/loader.ts:207
  // gives inline schemas an $id with a non-empty fragment.
  it('validates the inline list schemas of control.yaml', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await order(sim);
    expectControlResponse('listAccounts', await callGet(sim, '/_sim/accounts'));
    expectControlResponse('listOrders', await callGet(sim, '/_sim/orders', 'demo-key'));
    expectControlResponse('listRules', await callGet(sim, '/_sim/rules'));
    expectControlResponse('addRule', await call(sim, 'POST', '/_sim/rules', { body: { outcome: 'FAILED' } }));
    expectControlResponse('listAddresses', await callGet(sim, '/_sim/addresses'));
    expectControlResponse('getJournal', await callGet(sim, '/_sim/journal'));
  });
});
