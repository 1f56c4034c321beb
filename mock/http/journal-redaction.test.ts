/**
 * Secrets in request bodies the journal keeps, above all in bodies that do not parse:
 * a rejected body is often retried at once with the same key, which is then live.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { redactBody, redactKeys } from './journal-redaction.ts';

const KEY = 'live-team-key-9';

describe('redactBody', () => {
  it.each([
    ['JSON with a trailing comma', `{"apiKey":"${KEY}",}`],
    ['JSON cut short', `{"balance":{"trx":"1"},"apiKey":"${KEY}`],
    ['JSON with single quotes', `{'apiKey': '${KEY}'}`],
    ['JSON with bare names', `{apiKey: "${KEY}", referralCount: 1,}`],
    ['JSON with the name escaped', `{"api\\u004bey":"${KEY}",}`],
    ['JSON with white space around the colon', `{ "apiKey" :\n "${KEY}" ,}`],
    ['a form body', `apiKey=${KEY}&referralCount=1`],
    ['a form body with api_key', `referralCount=1&api_key=${KEY}`],
    ['a form body with API-KEY', `API-KEY=${KEY}`],
    ['a form body with the name %-escaped', `api%5Fkey=${KEY}`],
    ['a form body with a token', `token=${KEY}&x=1`],
    ['JSON with an upper-case API_KEY', `{"API_KEY":"${KEY}",}`],
    ['JSON with a nested access_token', `{"auth":{"access_token":"${KEY}"},}`],
    ['JSON with a password', `{"password":"${KEY}"`],
  ])('redacts the key of %s', (_name, body) => {
    const redacted = redactBody(body);
    expect(redacted).not.toContain(KEY);
    expect(redacted).toContain('[redacted]');
  });

  it('keeps what is no secret in a body that does not parse', () => {
    expect(redactBody(`{"apiKey":"${KEY}","referralCount":1,}`)).toBe(
      '{"apiKey":"[redacted]","referralCount":1,}',
    );
    expect(redactBody(`apiKey=${KEY}&rentalCount=65000`)).toBe('apiKey=[redacted]&rentalCount=65000');
  });

  it('leaves an order form body as it is', () => {
    const body =
      'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h&outOrderNo=shop-1';
    expect(redactBody(body)).toBe(body);
  });

  it('redacts secret names at any depth of JSON that parses, in any case', () => {
    expect(JSON.parse(redactBody(JSON.stringify({ a: [{ Api_Key: KEY }], token: KEY, trx: '1' })))).toEqual({
      a: [{ Api_Key: '[redacted]' }],
      token: '[redacted]',
      trx: '1',
    });
    expect(redactKeys({ apiKey: KEY, name: 'n' })).toEqual({ apiKey: '[redacted]', name: 'n' });
  });

  it('scans 64 KiB of hostile text without backtracking for long', () => {
    const hostile = [
      'a'.repeat(65_536) + 'key',
      '\\u0041'.repeat(10_000) + 'key',
      '"a"'.repeat(20_000) + 'key',
      'key:'.repeat(16_000),
    ];
    for (const text of hostile) expect(typeof redactBody(text)).toBe('string');
  });
});

describe('the journal and the dashboard after a body that does not parse', () => {
  it.each([
    ['JSON', 'application/json', `{"apiKey":"${KEY}",}`, JSON.stringify({ apiKey: KEY })],
    ['form-ish', 'application/x-www-form-urlencoded', `apiKey=${KEY}`, JSON.stringify({ apiKey: KEY })],
    ['JSON with API_KEY', 'application/json', `{"API_KEY":"${KEY}",}`, JSON.stringify({ apiKey: KEY })],
  ])('never hold a %s key once the valid retry made it live', async (_name, type, invalid, valid) => {
    const sim = createSimulator({ clock: 'manual' });
    const headers = { 'content-type': type };
    expect((await sim.app.request('/_sim/accounts', { method: 'POST', headers, body: invalid })).status).toBe(
      400,
    );
    expect(
      (
        await sim.app.request('/_sim/accounts', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: valid,
        })
      ).status,
    ).toBe(201);
    expect((await sim.app.request('/v1/account', { headers: { 'API-KEY': KEY } })).status).toBe(200);
    const journal = await (await sim.app.request('/_sim/journal?limit=1000')).text();
    const dashboard = await (await sim.app.request('/_sim/dashboard')).text();
    expect(journal).toContain('[redacted]');
    expect(journal).not.toContain(KEY);
    expect(dashboard).not.toContain(KEY);
  });
});

describe('the journal and a key in a query string', () => {
  it('never holds a secret-named query parameter, read or not', async () => {
    const sim = createSimulator({ clock: 'manual' });
    await sim.app.request(`/v1/tron/price?rentalCount=65000&period=1h&api_key=${KEY}`, {
      headers: { 'API-KEY': 'demo-key' },
    });
    await sim.app.request(`/v1/account?token=${KEY}`, { headers: { 'API-KEY': 'demo-key' } });
    const entries = sim.journal.list();
    expect(JSON.stringify(entries)).not.toContain(KEY);
    expect(entries[0]!.query).toEqual({ rentalCount: '65000', period: '1h', api_key: '[redacted]' });
  });
});

describe('redaction of deeply nested bodies', () => {
  it('redacts a key under 20 000 levels of nesting without running out of stack', () => {
    const deep = `{"apiKey":"${KEY}","a":${'['.repeat(20_000)}{"token":"${KEY}"}${']'.repeat(20_000)}}`;
    const redacted = redactBody(deep);
    expect(redacted).not.toContain(KEY);
  });

  // The nesting limit (32) refuses such a body with 400 before any parser sees it; the
  // journal keeps a marker in its place, so the key cannot leak from it either.
  it('journals a deeply nested control-plane body as a marker, without its key', async () => {
    const sim = createSimulator({ clock: 'manual', onUnexpectedError: () => {} });
    const body = `{"apiKey":"${KEY}","balance":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const res = await sim.app.request('/_sim/accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    const entries = sim.journal.list();
    expect(entries).toHaveLength(1);
    expect(entries[0]!.body).toContain('nests deeper than 32 levels');
    expect(JSON.stringify(entries)).not.toContain(KEY);
  });
});
