import { describe, expect, it } from 'vitest';
import { COVERAGE_IDS, impossibleIds, KNOWN_COVERAGE_IDS, resolveCoverageId } from './coverage-ids.ts';

describe('coverage ids', () => {
  it('resolves bare names where one id has them, and names the ambiguous and the unknown', () => {
    expect(resolveCoverageId('REFUNDED')).toEqual({ ok: true, id: 'status:REFUNDED' });
    expect(resolveCoverageId('FAILED>REFUNDED')).toEqual({ ok: true, id: 'transition:FAILED>REFUNDED' });
    expect(resolveCoverageId('PENDING>COMPLETED')).toEqual({ ok: true, id: 'transition:PENDING>COMPLETED' });
    expect(resolveCoverageId('createorder')).toEqual({ ok: true, id: 'op:createOrder' });
    expect(resolveCoverageId('status')).toMatchObject({ ok: false, problem: 'ambiguous' });
    expect(resolveCoverageId('REFUND')).toMatchObject({ ok: false, problem: 'unknown' });
    expect(KNOWN_COVERAGE_IDS).toEqual(expect.arrayContaining([...COVERAGE_IDS]));
  });
});

describe('the ids never may list', () => {
  it('name each lifecycle step once, and leave the skipped ones to what a poller saw', () => {
    const transitions = COVERAGE_IDS.filter((id) => id.startsWith('transition:'));
    expect(transitions).toEqual([
      'transition:PENDING>PROCESSING',
      'transition:PROCESSING>COMPLETED',
      'transition:PROCESSING>FAILED',
      'transition:FAILED>REFUNDED',
    ]);
    expect(KNOWN_COVERAGE_IDS).toContain('transition:PENDING>REFUNDED');
    expect(KNOWN_COVERAGE_IDS).not.toContain('transition:COMPLETED>PENDING');
  });

  it('are left out under the settings that make them impossible, and only then', () => {
    expect(impossibleIds({ duplicateOutOrderNo: 'reject', rateLimit: { requests: 1, windowMs: 1 } })).toEqual(
      [],
    );
    expect(
      impossibleIds({ duplicateOutOrderNo: 'return-existing', rateLimit: null }).map((i) => i.id),
    ).toEqual(['rejection:duplicateOutOrderNo', 'ratelimit']);
  });
});
