/**
 * The request journal over HTTP: what it records, its filters, clearing it, and that
 * no API key ever ends up in it.
 */
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { journalContentType } from './exchange.ts';
import { ORDER_QUERY } from '../test-support/fixtures.ts';

const START_MS = 1_741_801_809_000;

const control = createValidators(loadSpec('control'));

interface Entry {
  id: number;
  at: number;
  method: string;
  path: string;
  operation?: string;
  account?: string;
  query?: Record<string, string>;
  body?: string;
  status: number;
  response?: any;
  durationMs: number;
}

async function call(
  sim: Simulator,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const res = await sim.app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function journal(
  sim: Simulator,
  query = '',
): Promise<{ status: number; entries: Entry[]; text: string }> {
  const res = await sim.app.request(`/_sim/journal${query}`);
  const text = await res.text();
  const body = JSON.parse(text);
  if (res.status === 200) {
    expect(Object.keys(body)).toEqual(['entries']);
    const validate = control.schema('JournalEntry');
    for (const entry of body.entries) expect(validate(entry), JSON.stringify(validate.errors)).toBe(true);
  }
  return { status: res.status, entries: body.entries, text };
}

describe('GET /_sim/journal', () => {
  it('records an API call with its operation, account, query, status and response', async () => {
    const sim = createSimulator({ clock: 'manual' });
    sim.advance(1000);
    const price = await call(sim, 'GET', '/v1/tron/price?rentalCount=65000&period=1h', {
      'API-KEY': 'demo-key',
    });
    const wallet = (await call(sim, 'GET', '/v1/account', { 'API-KEY': 'demo-key' })).body.data.walletAddress;
    const { entries } = await journal(sim, '?operation=getPrice');
    expect(entries).toEqual([
      {
        id: expect.any(Number),
        at: START_MS + 1000,
        method: 'GET',
        path: '/v1/tron/price',
        operation: 'getPrice',
        account: wallet,
        query: { rentalCount: '65000', period: '1h' },
        status: 200,
        response: price.body,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('records the form body of an order and a rejection with its status', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(
      sim,
      'POST',
      '/v1/tron/order',
      { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
      `${ORDER_QUERY}&outOrderNo=j-1`,
    );
    await call(sim, 'POST', '/v1/tron/order?rentalCount=1', { 'API-KEY': 'demo-key' });
    const { entries } = await journal(sim, '?operation=createOrder');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ method: 'POST', status: 200, body: `${ORDER_QUERY}&outOrderNo=j-1` });
    expect(entries[1]).toMatchObject({
      status: 400,
      query: { rentalCount: '1' },
      response: { code: 20001, data: null },
    });
  });

  it('records calls without a known key without an account', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'GET', '/v1/account', { 'API-KEY': 'nope-nope' });
    await call(sim, 'GET', '/nope');
    const { entries } = await journal(sim);
    expect(entries.map((e) => [e.path, e.status, e.account])).toEqual([
      ['/v1/account', 401, undefined],
      ['/nope', 404, undefined],
    ]);
    expect(entries[0]!.operation).toBe('getAccount');
    expect(entries[1]!.operation).toBeUndefined();
  });

  it("leaves out the control plane's own reads but keeps its changes", async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'GET', '/_sim/health');
    await journal(sim);
    await call(sim, 'GET', '/_sim/clock');
    await call(sim, 'GET', '/_sim/orders', { 'API-KEY': 'demo-key' });
    await call(sim, 'POST', '/_sim/clock/advance', { 'content-type': 'application/json' }, '{"ms":1}');
    expect((await journal(sim)).entries.map((e) => `${e.method} ${e.path}`)).toEqual([
      'POST /_sim/clock/advance',
    ]);
  });

  it('answers the newest entries, oldest first, up to limit', async () => {
    const sim = createSimulator({ clock: 'manual' });
    for (let i = 1; i <= 5; i++)
      await call(sim, 'GET', `/v1/tron/price?rentalCount=${i}&period=1h`, { 'API-KEY': 'demo-key' });
    const { entries } = await journal(sim, '?limit=2');
    expect(entries.map((e) => e.query!.rentalCount)).toEqual(['4', '5']);
    expect(entries[0]!.id).toBeLessThan(entries[1]!.id);
  });

  it('filters by operation before limiting', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'GET', '/v1/account', { 'API-KEY': 'demo-key' });
    await call(sim, 'GET', '/v1/tron/price?rentalCount=1&period=1h', { 'API-KEY': 'demo-key' });
    await call(sim, 'GET', '/v1/account', { 'API-KEY': 'demo-key' });
    await call(sim, 'DELETE', '/_sim/rules');
    const accounts = await journal(sim, '?operation=getAccount&limit=5');
    expect(accounts.entries.map((e) => e.operation)).toEqual(['getAccount', 'getAccount']);
    expect((await journal(sim, '?operation=clearRules')).entries).toHaveLength(1);
    expect((await journal(sim, '?operation=noSuchOperation')).entries).toEqual([]);
  });

  it.each(['?limit=0', '?limit=10001', '?limit=many'])('refuses %s with 400', async (query) => {
    const sim = createSimulator({ clock: 'manual' });
    const reply = await journal(sim, query);
    expect(reply.status).toBe(400);
    const body = JSON.parse(reply.text);
    expect(body).toMatchObject({ code: 20002, msg: expect.stringContaining("'limit'") });
    expect(control.response('getJournal', 400)!(body)).toBe(true);
  });

  it('keeps at most journalLimit entries, dropping the oldest', async () => {
    const sim = createSimulator({ clock: 'manual', journalLimit: 3 });
    for (let i = 1; i <= 5; i++)
      await call(sim, 'GET', `/v1/tron/price?rentalCount=${i}&period=1h`, { 'API-KEY': 'demo-key' });
    expect((await journal(sim, '?limit=100')).entries.map((e) => e.query!.rentalCount)).toEqual([
      '3',
      '4',
      '5',
    ]);
  });
});

describe('DELETE /_sim/journal', () => {
  it('clears the journal, leaving it empty', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'GET', '/v1/account', { 'API-KEY': 'demo-key' });
    await call(sim, 'GET', '/_sim/rules');
    const reply = await call(sim, 'DELETE', '/_sim/journal');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true });
    expect(control.response('clearJournal', 200)!(reply.body)).toBe(true);
    expect((await journal(sim)).entries).toEqual([]);
  });

  it('is cleared by a reset too', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await call(sim, 'GET', '/v1/account', { 'API-KEY': 'demo-key' });
    await call(sim, 'POST', '/_sim/reset');
    expect((await journal(sim)).entries.map((e) => e.operation)).toEqual(['reset']);
  });
});

describe('API keys and the journal', () => {
  it('never holds demo-key or the key of an account created over HTTP, whatever the calls', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const json = { 'content-type': 'application/json' };
    const custom = await call(
      sim,
      'POST',
      '/_sim/accounts',
      json,
      JSON.stringify({ apiKey: 'custom-key-42', balance: { trx: '50' } }),
    );
    expect(custom.status).toBe(201);
    const spaced = await call(sim, 'POST', '/_sim/accounts', json, '{ "apiKey" :\n "spaced-key-43" }');
    expect(spaced.status).toBe(201);
    const generated = (await call(sim, 'POST', '/_sim/accounts', json, '{}')).body.apiKey as string;
    expect(
      (await call(sim, 'POST', '/_sim/accounts', json, JSON.stringify({ apiKey: 'custom-key-42' }))).status,
    ).toBe(409);
    expect(
      (
        await call(
          sim,
          'POST',
          '/_sim/accounts',
          json,
          JSON.stringify({ apiKey: 'custom-key-44', balance: { trx: 'x' } }),
        )
      ).status,
    ).toBe(400);
    for (const key of ['demo-key', 'custom-key-42', 'spaced-key-43', generated]) {
      const headers = { 'API-KEY': key };
      await call(sim, 'GET', '/v1/account', headers);
      await call(sim, 'GET', '/v1/tron/price?rentalCount=65000&period=1h', headers);
      await call(sim, 'POST', `/v1/tron/order?${ORDER_QUERY}&outOrderNo=o-1`, headers);
      await call(sim, 'GET', '/v1/tron/history?outOrderNo=o-1', headers);
      await call(sim, 'GET', '/v1/tron/history', headers);
      await call(sim, 'GET', '/_sim/accounts/me', headers);
      await call(sim, 'POST', '/_sim/accounts/me/deposit', { ...headers, ...json }, '{"trx":"1"}');
      await call(sim, 'GET', '/_sim/orders', headers);
    }
    await call(sim, 'GET', '/_sim/accounts');
    const { entries, text } = await journal(sim, '?limit=10000');
    // Per key 8 calls, of which the two control-plane reads are not journaled.
    expect(entries).toHaveLength(5 + 4 * 6);
    for (const secret of ['demo-key', 'custom-key-42', 'spaced-key-43', 'custom-key-44', generated])
      expect(text).not.toContain(secret);
    expect(
      entries
        .filter((e) => e.operation === 'createAccount' && e.status === 201)
        .map((e) => e.response.apiKey),
    ).toEqual(['[redacted]', '[redacted]', '[redacted]']);
  });

  // BUG: GET /_sim/scenario answers 'demo-key' unredacted (mock/http/control-routes.ts:180
  // keeps it on purpose), and the journal stores that response as it is, so the journal,
  // which control.yaml promises never holds an API key, holds 'demo-key'. (The scenario
  // endpoint itself is documented as "API keys are redacted" too.)
  it('never holds demo-key, even after the scenario was read', async () => {
    const sim = createSimulator({ clock: 'manual' });
    expect((await call(sim, 'GET', '/_sim/scenario')).status).toBe(200);
    expect((await journal(sim)).text).not.toContain('demo-key');
  });

  // BUG: redactBody (mock/http/create-app.ts:141) looks for the literal text "apiKey". A
  // JSON body that spells the field with an escape, {"api\u004bey":"..."}, creates the
  // account with that key (JSON.parse decodes the escape) but is journaled verbatim, key included.
  it('never holds a key sent in a body that spells apiKey with a JSON escape', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const created = await call(
      sim,
      'POST',
      '/_sim/accounts',
      { 'content-type': 'application/json' },
      '{"api\\u004bey":"escaped-key-45"}',
    );
    expect(created.status).toBe(201);
    expect(created.body.apiKey).toBe('escaped-key-45');
    expect((await journal(sim)).text).not.toContain('escaped-key-45');
  });
});

describe('journal redaction of bodies', () => {
  it('redacts a key in a JSON body that starts with white space', async () => {
    const { createSimulator } = await import('../simulator.ts');
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/_sim/accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '  \n {"apiKey":"spaced-key-0001","balance":{"trx":"1"}}',
    });
    expect(res.status).toBe(201);
    expect(JSON.stringify(sim.journal.list())).not.toContain('spaced-key-0001');
  });
});

describe('createJournal', () => {
  it('lists a response kept as its JSON text as the object, with the same keys in the same order as one kept as an object', async () => {
    const { createJournal } = await import('./journal.ts');
    const journal = createJournal(4);
    const response = { code: 0, msg: 'Get price successfully', data: { sun: '65' } };
    const base = {
      at: 1,
      method: 'GET',
      path: '/v1/tron/price',
      status: 200,
      durationMs: 0.5,
      operation: 'getPrice',
      account: 'T1',
    };
    journal.record({ ...base, response, query: { rentalCount: '65000' } });
    journal.record({ ...base, queryText: 'rentalCount=65000', responseText: JSON.stringify(response) });
    const [asObject, asText] = journal.list().map(({ id: _id, ...rest }) => rest);
    expect(asText).toEqual(asObject);
    expect(JSON.stringify(asText)).toBe(JSON.stringify(asObject));
  });

  it('numbers the entry it is given and lets listeners hear it even with no room to keep it', async () => {
    const { createJournal } = await import('./journal.ts');
    const journal = createJournal(0);
    const heard: number[] = [];
    journal.subscribe((entry) => heard.push(entry.id));
    journal.record({ at: 1, method: 'GET', path: '/', status: 404, durationMs: 0 });
    journal.record({ at: 2, method: 'GET', path: '/', status: 404, durationMs: 0 });
    expect(heard).toEqual([1, 2]);
    expect(journal.list()).toEqual([]);
  });
});

describe("an entry's content type", () => {
  it('is kept as sent for an API form and a control-plane JSON body, so a copy repeats it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await sim.fetch('http://sim/v1/tron/order', {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: 'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h',
    });
    await sim.app.request('/_sim/rules', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'FAILED' }),
    });
    await sim.fetch('http://sim/v1/account', { headers: { 'API-KEY': 'demo-key' } });
    expect(sim.journal.list().map((e) => e.contentType)).toEqual([
      'application/x-www-form-urlencoded; charset=UTF-8',
      'application/json',
      undefined,
    ]);
  });

  it('keeps only the media type, its charset and its boundary: any other parameter could hold a key', () => {
    expect(journalContentType('text/plain; apiKey=sk_live_1; charset=utf-8')).toBe(
      'text/plain; charset=utf-8',
    );
    expect(journalContentType('multipart/form-data; boundary=----x1')).toBe(
      'multipart/form-data; boundary=----x1',
    );
    expect(journalContentType('sk_live_secret')).toBeUndefined();
    expect(journalContentType(undefined)).toBeUndefined();
  });
});
