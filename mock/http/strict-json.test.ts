/**
 * Control-plane JSON is read strictly: a field given twice or a
 * number beyond Number.MAX_SAFE_INTEGER is refused, naming the field.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { parseStrictJson } from './request-body.ts';

describe('parseStrictJson', () => {
  it.each([
    ['{"trx":"5","trx":"6"}', /Field 'trx' is given more than once/],
    ['{"balance":{"trx":"1","usdt":"1","trx":"2"}}', /Field 'balance.trx' is given more than once/],
    ['{"a\\u0062":1,"ab":2}', /Field 'ab' is given more than once/],
    ['[{"x":1},{"y":1,"y":2}]', /Field '1.y' is given more than once/],
  ])('refuses %s, naming the field given twice', (text, message) => {
    expect(() => parseStrictJson(text)).toThrow(
      expect.objectContaining({ code: 20003, status: 400, message: expect.stringMatching(message) }),
    );
  });

  it.each([
    ['{"ms":9007199254740993}', /Field 'ms' is 9007199254740993, beyond 9007199254740991/],
    ['{"energy":1e308}', /Field 'energy' is 1e308/],
    ['{"a":[1,2,-9007199254740992]}', /Field 'a.2' is -9007199254740992/],
    ['{"x":{"y":[{"z":1E+16}]}}', /Field 'x.y.0.z' is 1E\+16/],
  ])('refuses %s, naming the number beyond the safe integers', (text, message) => {
    expect(() => parseStrictJson(text)).toThrow(
      expect.objectContaining({ code: 20002, status: 400, message: expect.stringMatching(message) }),
    );
  });

  it('reads what JSON.parse reads when nothing is given twice and every number is safe', () => {
    const text =
      '{"a":{"a":1,"b":[{"a":2},{"a":3}]},"b":"\\"a\\":1,\\"a\\"","c":9007199254740991,"d":-0.5e-3,"e":[],"f":{}}';
    expect(parseStrictJson(text)).toEqual(JSON.parse(text));
  });

  it('reads a body nested 20 000 deep without running out of stack', () => {
    const deep = `${'['.repeat(20_000)}1${']'.repeat(20_000)}`;
    expect(() => parseStrictJson(deep)).not.toThrow();
  });

  it('refuses text that is not JSON with 20003', () => {
    expect(() => parseStrictJson('{"a":1,}')).toThrow(
      expect.objectContaining({ code: 20003, message: expect.stringMatching(/not valid JSON/) }),
    );
  });
});

describe('control-plane bodies over HTTP', () => {
  it('refuses a deposit with trx given twice, and deposits nothing', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/_sim/accounts/me/deposit', {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', 'content-type': 'application/json' },
      body: '{"trx":"5","trx":"6"}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 20003,
      data: null,
      msg: expect.stringContaining("'trx'"),
    });
    expect(sim.engine.accounts()[0]!.ledger.TRX.deposited).toBe(1000_000_000);
  });

  it('refuses an advance of 9007199254740993 ms instead of rounding it', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const res = await sim.app.request('/_sim/clock/advance', {
      method: 'POST',
      body: '{"ms":9007199254740993}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: 20002,
      msg: expect.stringContaining("'ms' is 9007199254740993"),
    });
  });
});
