/**
 * Secrets in request bodies the journal keeps, above all in bodies that do not parse:
 * a rejected body is often retried at once with the same key, which is then live.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import {
  createKeyAliases,
  isSecretName,
  redactBody,
  redactKeys,
  replaceKeys,
  redactUrl,
  secretPairValues,
  secretValuesOfJson,
} from './journal-redaction.ts';

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

describe('replaceKeys', () => {
  const KEYS = [['sk_live_12345', 'key-2']] as const;

  it.each([
    ['as it is', 'invalid key sk_live_12345.', 'invalid key key-2.'],
    ['percent-encoded where it need not be', 'k=sk%5Flive%5f12345&x=1', 'k=key-2&x=1'],
    ['at the start and the end', 'sk_live_12345', 'key-2'],
    ['in quotes', '{"msg":"sk_live_12345"}', '{"msg":"key-2"}'],
  ])('replaces a key standing %s by its alias', (_how, text, kept) => {
    expect(replaceKeys(text, KEYS)).toBe(kept);
  });

  it('leaves a longer token that only contains the key, and keys too short to look for', () => {
    expect(replaceKeys('xsk_live_12345 sk_live_123456', KEYS)).toBe('xsk_live_12345 sk_live_123456');
    expect(replaceKeys('a short k1 key', [['k1', 'key-3']])).toBe('a short k1 key');
  });

  it('replaces keys in every string of a JSON value, names included, and keeps the rest', () => {
    const value = { a: ['sk_live_12345'], sk_live_12345: 1, n: 3, ok: 'fine' };
    expect(redactKeys(value, KEYS)).toEqual({ a: ['key-2'], 'key-2': 1, n: 3, ok: 'fine' });
    const clean = { ok: 'fine' };
    expect(redactKeys(clean, KEYS)).toBe(clean);
  });
});

describe('createKeyAliases', () => {
  it('names keys by first appearance, the same name each time, within its limit', () => {
    const aliases = createKeyAliases(2);
    expect([
      aliases.alias('sk_live_12345'),
      aliases.alias('sk_live_67890'),
      aliases.alias('sk_live_12345'),
    ]).toEqual(['key-1', 'key-2', 'key-1']);
    expect(aliases.alias('sk_live_third')).toBe('key-overflow');
    expect(aliases.scrubText('sk_live_67890 then sk_live_12345')).toBe('key-2 then key-1');
  });
});

describe('secretPairValues', () => {
  it('finds the keys a query, a form body or a JSON body carries under secret names', () => {
    expect(secretPairValues('rentalCount=1&api_key=sk_live_12345&API-KEY=other-key-1')).toEqual([
      'sk_live_12345',
      'other-key-1',
    ]);
    expect(secretPairValues('{"auth":{"token":"tk_12345678"},"apiKey":"ak_12345678"}')).toEqual([
      'tk_12345678',
      'ak_12345678',
    ]);
    expect(secretPairValues('pledgeAddress=T1&rentalCount=65000')).toEqual([]);
  });
});

describe('redactUrl', () => {
  it('hides the credentials and secret parameters of a URL, and leaves a plain one as it is', () => {
    expect(redactUrl('https://me:pw@api.example/api?token=t1&x=1')).toBe(
      'https://[redacted]@api.example/api?token=[redacted]&x=1',
    );
    expect(redactUrl('https://api.eopen.io/api')).toBe('https://api.eopen.io/api');
  });
});

describe('secretValuesOfJson', () => {
  it("finds a JSON answer's keys in its secret-named fields and in the pairs its strings hold, in document order, each once", () => {
    const value = {
      note: 'api_key=sk_pair_12345678',
      data: { token: 'tk_field_12345678' },
      again: { token: 'tk_field_12345678' },
    };
    expect(secretValuesOfJson(value, JSON.stringify(value))).toEqual([
      'sk_pair_12345678',
      'tk_field_12345678',
    ]);
    // A name given twice: JSON.parse keeps the last value, the text shows both.
    expect(
      secretValuesOfJson(
        { apiKey: 'sk_second_12345678' },
        '{"apiKey":"sk_first_12345678","apiKey":"sk_second_12345678"}',
      ),
    ).toEqual(['sk_second_12345678', 'sk_first_12345678']);
  });

  it('finds a key under a name whose letters separators keep apart, as isSecretName reads it', () => {
    const value = { 'API_K-E-Y': 'sk_spread_12345678' };
    expect(isSecretName('API_K-E-Y')).toBe(true);
    expect(secretValuesOfJson(value, JSON.stringify(value))).toEqual(['sk_spread_12345678']);
  });
  it.each([
    'apiKey',
    'API-KEY',
    'access_token',
    'client.Secret',
    'password',
    'PassWd',
    'Authorization',
    'authorisation',
    'bearer',
    'A-u-t-h-o-r-i-s-a-t-i-o-n',
    'p_a_s_s_w_o_r_d',
  ])(
    'finds a key under %s: every name isSecretName accepts gets past the gate in front of the search',
    (name) => {
      const value = { [name]: 'sk_named_12345678' };
      expect(isSecretName(name)).toBe(true);
      expect(secretValuesOfJson(value, JSON.stringify(value))).toEqual(['sk_named_12345678']);
    },
  );
});

describe('secretPairValues', () => {
  it('finds the values of secret-named pairs in broken JSON and forms, quotes and escapes taken off', () => {
    expect(secretPairValues('{"note":"x","apiKey":"sk_live_1234\\u0035678","x":[1,2')).toEqual([
      'sk_live_12345678',
    ]);
    expect(secretPairValues('ok=1&api_key=sk%5Flive%5F12345678')).toEqual(['sk_live_12345678']);
  });

  it('leaves out bare numbers and literals, and values too short to replace by value', () => {
    expect(secretPairValues('{"token": 123456789012, "auth": true, "password": "short"}')).toEqual([]);
    // JSON.stringify writes large numbers with an exponent; a form's '+' would make it a space.
    expect(secretPairValues('{"apiKey":1.0000000000000001e+21,"token":-2.5E-300}')).toEqual([]);
  });
});
