/**
 * The journal's memory bound: what one entry keeps of a response, and that the control
 * plane's own (largest) reads are not journaled at all.
 */
import { describe, expect, it } from 'vitest';
import { createValidators, loadSpec } from '../../src/spec/loader.ts';
import { createSimulator } from '../simulator.ts';
import { createJournal, JOURNAL_RESPONSE_LIMIT } from './journal.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

const control = createValidators(loadSpec('control'));
const base = { at: 1, method: 'GET', path: '/v1/tron/history', status: 200, durationMs: 0.1 };

describe('createJournal bounds what one entry keeps', () => {
  it('keeps at most 4 KiB of a response given as JSON text, marked as cut', () => {
    const journal = createJournal(10);
    const big = JSON.stringify({ code: 0, data: 'x'.repeat(1_000_000) });
    journal.record({ ...base, responseText: big });
    const [entry] = journal.list();
    expect(entry!.responseTruncated).toBe(true);
    expect(entry!.response).toBe(big.slice(0, JOURNAL_RESPONSE_LIMIT));
    expect(control.schema('JournalEntry')(entry)).toBe(true);
  });

  it('keeps at most 4 KiB of a response given as an object, marked as cut', () => {
    const journal = createJournal(10);
    journal.record({
      ...base,
      response: { orders: Array.from({ length: 10_000 }, (_, i) => ({ orderId: `OR${i}` })) },
    });
    const [entry] = journal.list();
    expect(entry!.responseTruncated).toBe(true);
    expect((entry!.response as string).length).toBe(JOURNAL_RESPONSE_LIMIT);
  });

  it('keeps a response of 4 KiB or less whole and unmarked', () => {
    const journal = createJournal(10);
    const response = { code: 0, data: 'y'.repeat(JOURNAL_RESPONSE_LIMIT - 20) };
    journal.record({ ...base, response });
    const [entry] = journal.list();
    expect(JSON.stringify(response).length).toBeLessThanOrEqual(JOURNAL_RESPONSE_LIMIT);
    expect(entry!.response).toEqual(response);
    expect(entry).not.toHaveProperty('responseTruncated');
  });

  it('never cuts a surrogate pair in half', () => {
    const journal = createJournal(1);
    // '{"d":"' is 6 characters: pad so that an emoji straddles the limit.
    const text = `{"d":"${'a'.repeat(JOURNAL_RESPONSE_LIMIT - 7)}😀😀"}`;
    journal.record({ ...base, responseText: text });
    const kept = journal.list()[0]!.response as string;
    expect(kept.length).toBe(JOURNAL_RESPONSE_LIMIT - 1);
    expect(kept.at(-1)).toBe('a');
  });

  it('holds 1000 entries of megabyte responses in under 5 MB of listed JSON', () => {
    const journal = createJournal(1000);
    const big = JSON.stringify({ data: 'z'.repeat(1_000_000) });
    for (let i = 0; i < 1000; i++) journal.record({ ...base, responseText: big });
    const listed = JSON.stringify(journal.list({ limit: 1000 }));
    expect(listed.length).toBeLessThan(5_000_000);
  });
});

describe('the journal over HTTP after many big reads', () => {
  it('answers /_sim/journal?limit=1000 in under 5 MB after 300 reads of 1000 orders', async () => {
    const sim = createSimulator({
      clock: 'manual',
      timing: 'instant',
      scenario: { accounts: [{ apiKey: 'big-reader', balance: { trx: '100000' } }] },
    });
    const headers = { 'API-KEY': 'big-reader' };
    for (let i = 0; i < 1000; i++) {
      const res = await sim.app.request(
        `/v1/tron/order?pledgeAddress=${ADDRESS}&rentalCount=64000&period=10min&outOrderNo=big-${i}`,
        { method: 'POST', headers },
      );
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < 300; i++) {
      const res = await sim.app.request('/_sim/orders?limit=1000', { headers });
      expect((await res.text()).length).toBeGreaterThan(400_000);
    }
    const res = await sim.app.request('/_sim/journal?limit=1000');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeLessThan(5_000_000);
    const { entries } = JSON.parse(text) as { entries: { path: string }[] };
    expect(entries.some((e) => e.path === '/_sim/orders')).toBe(false);
  }, 120_000);
});
