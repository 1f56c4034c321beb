/**
 * The live dashboard's routes: the snapshot, the page and the event stream, in process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { EVENT_INTERVAL_MS } from './dashboard-routes.ts';
import { ADDRESS, OTHER_ADDRESS, order } from '../test-support/fixtures.ts';

const control = createValidators(loadSpec('control'));

async function dashboard(
  sim: Simulator,
  query = '',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await sim.app.request(`/_sim/dashboard${query}`, { headers });
  return { status: res.status, body: await res.json() };
}

function expectDashboard(body: unknown): void {
  const validate = control.response('getDashboard', 200);
  expect(validate, 'control.yaml defines getDashboard 200').toBeDefined();
  expect(validate!(body), JSON.stringify(validate!.errors)).toBe(true);
}

/** Reads server-sent events from a response body until `until` says stop or `timeoutMs` passes. */
async function readEvents(
  res: Response,
  until: (events: { event: string; data: string }[], raw: string) => boolean,
  timeoutMs = 3000,
): Promise<{ events: { event: string; data: string }[]; raw: string }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  const events: { event: string; data: string }[] = [];
  const deadline = Date.now() + timeoutMs;
  try {
    while (!until(events, raw)) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), left)),
      ]);
      if (chunk === 'timeout' || chunk.done) break;
      raw += decoder.decode(chunk.value, { stream: true });
      events.length = 0;
      for (const block of raw.split('\n\n').slice(0, -1)) {
        const lines = block.split('\n');
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
        const data = lines
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n');
        if (event) events.push({ event, data });
      }
    }
  } finally {
    await reader.cancel();
  }
  return { events, raw };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /_sim/dashboard', () => {
  it('answers one snapshot that control.yaml describes', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'fast' });
    const first = await order(sim);
    sim.advance(1000);
    await sim.app.request('/_sim/rules', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: { outOrderNo: 'x' }, outcome: 'FAILED', times: 2 }),
    });
    const second = await order(sim, OTHER_ADDRESS, '&outOrderNo=x');

    const { status, body } = await dashboard(sim);
    expect(status).toBe(200);
    expectDashboard(body);
    expect(body.clock).toMatchObject({ mode: 'manual', now: sim.clock.now() });
    expect(body.settings.timing).toBe('fast');
    expect(body.supply).toEqual({ energy: null, delegated: 0 });
    const demo = sim.engine.accounts()[0]!;
    expect(body.accounts).toEqual([
      expect.objectContaining({ walletAddress: demo.walletAddress, orders: 2 }),
    ]);
    expect(body.accounts[0].ledger.trx).toEqual({
      deposited: '1000',
      available: '991.54',
      frozen: '4.23',
      spent: '4.23',
    });
    expect(body.orders.map((o: { orderId: string }) => o.orderId)).toEqual([second, first]);
    expect(body.orders[0]).toMatchObject({
      status: 'PENDING',
      walletAddress: demo.walletAddress,
      outOrderNo: 'x',
      next: { status: 'PROCESSING' },
    });
    expect(body.orders[1]).toMatchObject({
      status: 'COMPLETED',
      amount: '4.23',
      timeline: [{ status: 'PENDING' }, { status: 'PROCESSING' }, { status: 'COMPLETED' }],
    });
    expect(body.orders[1].txId).toMatch(/^[0-9a-f]{64}$/);
    expect(body.addresses.map((a: { address: string }) => a.address).sort()).toEqual(
      [ADDRESS, OTHER_ADDRESS].sort(),
    );
    expect(body.addresses.find((a: { address: string }) => a.address === OTHER_ADDRESS)).toEqual({
      address: OTHER_ADDRESS,
      activated: false,
    });
    expect(body.rules).toEqual([
      { id: 'rule-1', match: { outOrderNo: 'x' }, outcome: 'FAILED', times: 2, used: 1 },
    ]);
    expect(body.faults).toEqual([]);
    // Newest first; the dashboard's own reads are not journaled.
    expect(body.journal.map((e: { operation: string }) => e.operation)).toEqual([
      'createOrder',
      'addRule',
      'createOrder',
    ]);
  });

  it('lists the faults in force as GET /_sim/faults does', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await sim.app.request('/_sim/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'getPrice', latencyMs: 5, times: 3 }),
    });
    const { body } = await dashboard(sim);
    const listed = (await (await sim.app.request('/_sim/faults')).json()) as { faults: unknown[] };
    expect(body.faults).toEqual(listed.faults);
    expect(body.faults).toEqual([{ id: 'fault-1', operation: 'getPrice', latencyMs: 5, times: 3, used: 0 }]);
  });

  // BUG (spec/control.yaml, not the dashboard): `Fault` is allOf FaultRequest, which has
  // additionalProperties: false, plus { id, used }, so no fault can ever match it; every
  // answer that lists a fault (GET /_sim/faults too) fails validation. Remove `.fails`
  // once Fault is fixed.
  it('validates a snapshot with a fault in force against control.yaml', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await sim.app.request('/_sim/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'getPrice', latencyMs: 5 }),
    });
    expectDashboard((await dashboard(sim)).body);
  });

  it('merges the orders of every account, newest first, up to limit', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const other = sim.engine.createAccount({ apiKey: 'other-key-123', trx: 100_000_000 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(await order(sim, ADDRESS, '', i % 2 ? 'other-key-123' : 'demo-key'));
      sim.advance(10);
    }
    const { body } = await dashboard(sim, '?limit=3');
    expectDashboard(body);
    expect(body.orders.map((o: { orderId: string }) => o.orderId)).toEqual(ids.reverse().slice(0, 3));
    expect(body.orders[0].walletAddress).toBe(other.account.walletAddress);
    expect((await dashboard(sim)).body.orders).toHaveLength(4);
  });

  it('keeps the 30 newest journal entries', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (let i = 0; i < 35; i++)
      await sim.app.request('/v1/tron/price?rentalCount=65000&period=1h', {
        headers: { 'API-KEY': 'demo-key' },
      });
    const { body } = await dashboard(sim);
    expectDashboard(body);
    expect(body.journal).toHaveLength(30);
    expect(body.journal[0].id).toBe(35);
    expect(body.journal[29].id).toBe(6);
  });

  it('rejects a limit out of range with the error envelope', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (const limit of ['0', '1001', 'many']) {
      const { status, body } = await dashboard(sim, `?limit=${limit}`);
      expect(status).toBe(400);
      expect(control.response('getDashboard', 400)!(body)).toBe(true);
      expect(body.msg).toMatch(/limit/);
    }
  });
});

describe('GET /_sim/ui', () => {
  it('serves the page as HTML that loads only its own stylesheet and modules', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/_sim/ui');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('data-testid="orders"');
    expect(html).toContain('<script type="module" src="ui/main.js">');
    // Nothing from elsewhere: no CDN, no external script or stylesheet, no inline script.
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)|<script>/);
    expect(sim.journal.size).toBe(0);
  });

  // That the built dist/ serves them too is held by scripts/package-install.test.ts, on the
  // dist/ its pack builds anyway: a build of its own here cost some 10 s of CPU.
  it('serves every static file with its content type, nosniff, and no journal entry', async () => {
    const sim = createSimulator({ clock: 'manual', control: { token: 't' } });
    const dir = new URL('./dashboard/static/', import.meta.url);
    // The pages are served as /_sim/ui and /docs.
    const names = readdirSync(dir).filter((name) => !name.endsWith('.html'));
    expect(names).toEqual(expect.arrayContaining(['dashboard.css', 'main.js', 'journal.js']));
    for (const name of names) {
      const res = await sim.app.request(`/_sim/ui/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toBe(
        name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe(readFileSync(new URL(name, dir), 'utf8'));
    }
    expect(sim.journal.size).toBe(0);
  });

  it('answers 404 for a file the dashboard does not have, and never leaves its folder', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (const name of [
      'nope.js',
      'index.html',
      '..%2Fassets.ts',
      '..%2F..%2Fcreate-app.ts',
      'dashboard.css%00.js',
    ]) {
      const res = await sim.app.request(`/_sim/ui/${name}`);
      expect(res.status, name).toBe(404);
    }
  });
});

describe('GET /_sim/events', () => {
  it('streams a change event after an order is created', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/_sim/events');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reading = readEvents(res, (events) => events.some((e) => JSON.parse(e.data).type === 'order'));
    const id = await order(sim);
    const { events, raw } = await reading;
    expect(raw.startsWith(': connected\n\n')).toBe(true);
    expect(events.length).toBeGreaterThan(0);
    const validate = control.schema('ChangeEvent');
    for (const e of events) {
      expect(e.event).toBe('change');
      expect(validate(JSON.parse(e.data)), e.data).toBe(true);
    }
    expect(events.map((e) => JSON.parse(e.data))).toContainEqual({ type: 'order', id });
  });

  it('merges a burst of changes into at most about ten events a second', async () => {
    const sim = createSimulator({ clock: 'manual', timing: 'instant' });
    const res = await sim.app.request('/_sim/events');
    const started = Date.now();
    const reading = readEvents(res, () => Date.now() - started > 450, 1000);
    // 40 orders: each makes order, account and journal changes, well over 100 in all.
    for (let i = 0; i < 40; i++) await order(sim);
    await sleep(500);
    const { events } = await reading;
    const elapsed = Date.now() - started;
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThanOrEqual(Math.ceil(elapsed / EVENT_INTERVAL_MS) + 1);
  });

  it('keeps the reset when it falls in a window with other changes', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/_sim/events');
    const reading = readEvents(
      res,
      (events) => events.some((e) => JSON.parse(e.data).type === 'reset'),
      2000,
    );
    await order(sim);
    await sim.app.request('/_sim/reset', { method: 'POST' });
    const { events } = await reading;
    expect(events.map((e) => JSON.parse(e.data).type)).toContain('reset');
  });

  it('streams an order change when a rental gives its energy back, and none for a rule, the supply or an address set in process', async () => {
    const sim = createSimulator({
      clock: 'manual',
      timing: 'instant',
      scenario: { supply: 200_000, accounts: [{ apiKey: 'demo-key', balance: { trx: '100' } }] },
    });
    const demo = sim.engine.authenticate('demo-key')!;
    const { order } = sim.engine.createOrder(demo, {
      pledgeAddress: ADDRESS,
      rentalCount: 65_000,
      period: '1h',
    });
    expect(order.reserved).toBe(true);
    const res = await sim.app.request('/_sim/events');
    let connected!: () => void;
    const open = new Promise<void>((resolve) => (connected = resolve));
    const reading = readEvents(res, (events, raw) => {
      if (raw.includes(': connected')) connected();
      return events.length > 0;
    });
    await open;
    // ChangeEvent has no type for these; made through the control plane, they are journaled.
    sim.engine.rules.add({ match: {}, outcome: 'FAILED' });
    sim.engine.setSupply(300_000);
    sim.engine.setAddress(OTHER_ADDRESS, true);
    await sleep(2 * EVENT_INTERVAL_MS);
    sim.advance(3_600_000);
    const { events } = await reading;
    expect(events.map((e) => JSON.parse(e.data))).toEqual([{ type: 'order', id: order.id }]);
    expect(sim.engine.supply().delegated).toBe(0);
  });

  it('stops listening to the engine and the journal when the client goes away', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const subscribed = { engine: 0, journal: 0 };
    for (const key of ['engine', 'journal'] as const) {
      const target = sim[key];
      const original = target.subscribe.bind(target);
      target.subscribe = (listener: never) => {
        subscribed[key]++;
        const off = original(listener);
        return () => {
          subscribed[key]--;
          return off();
        };
      };
    }
    const res = await sim.app.request('/_sim/events');
    await readEvents(res, (_events, raw) => raw.includes(': connected'));
    await sleep(20);
    expect(subscribed).toEqual({ engine: 0, journal: 0 });
  });

  it('stops when the request is aborted', async () => {
    const sim = createSimulator({ clock: 'manual' });
    let live = 0;
    const original = sim.journal.subscribe.bind(sim.journal);
    sim.journal.subscribe = (listener) => {
      live++;
      const off = original(listener);
      return () => {
        live--;
        return off();
      };
    };
    const controller = new AbortController();
    const res = await sim.app.request('/_sim/events', { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    expect(live).toBe(1);
    controller.abort();
    await order(sim); // wakes the stream, which sees the abort
    await sleep(20);
    expect(live).toBe(0);
    await reader.cancel().catch(() => {});
  });
});

describe('the dashboard with a control token', () => {
  const sim = (): Simulator => createSimulator({ clock: 'manual', control: { token: 't' } });

  it('needs the header for /_sim/dashboard', async () => {
    const s = sim();
    const without = await dashboard(s);
    expect(without.status).toBe(401);
    expect(control.response('getDashboard', 401)!(without.body)).toBe(true);
    expect((await dashboard(s, '?token=t')).status).toBe(401);
    expect((await dashboard(s, '', { Authorization: 'Bearer wrong' })).status).toBe(401);
    const withHeader = await dashboard(s, '', { Authorization: 'Bearer t' });
    expect(withHeader.status).toBe(200);
    expectDashboard(withHeader.body);
  });

  it('accepts ?token= on /_sim/events, which an EventSource cannot send as a header', async () => {
    const s = sim();
    expect((await s.app.request('/_sim/events')).status).toBe(401);
    expect((await s.app.request('/_sim/events?token=wrong')).status).toBe(401);
    const res = await s.app.request('/_sim/events?token=t');
    expect(res.status).toBe(200);
    const reading = readEvents(res, (events) => events.length > 0);
    await order(s);
    expect((await reading).events.length).toBeGreaterThan(0);
    const viaHeader = await s.app.request('/_sim/events', { headers: { Authorization: 'Bearer t' } });
    expect(viaHeader.status).toBe(200);
    await viaHeader.body!.cancel();
  });

  it('leaves /_sim/ui open: the page holds no data', async () => {
    const res = await sim().app.request('/_sim/ui');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<title>');
  });
});
