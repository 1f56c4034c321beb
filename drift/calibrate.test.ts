/**
 * Calibration's lifecycle delays: the recorded medians are upper bounds, to a whole second
 * where the service's times have whole seconds; a status no poll caught is given no time.
 */
import { describe, expect, it } from 'vitest';
import type { Interaction } from '../recording/recording.ts';
import { baseline, exchange, VALUES_A, type BaselineValues } from '../recording/test-support.ts';
import { calibrate, rejectionKind } from './calibrate.ts';
import { ADDRESS } from '../mock/test-support/fixtures.ts';

const withPolls = (polls: BaselineValues['polls']): BaselineValues => ({ ...VALUES_A, polls });

describe('calibrated lifecycle delays', () => {
  it('are the recorded medians when the polls saw the order open', () => {
    const { settings } = calibrate(baseline(VALUES_A));
    expect(settings.delaysMs).toEqual({ processing: 2000, outcome: 5000 });
    expect(settings.activationDelayMs).toBe(0);
  });

  it('are 0 when no poll ever saw an order open, though a second edge measured 1 s', () => {
    const done = baseline(
      withPolls([
        ['COMPLETED', 1],
        ['COMPLETED', 2],
      ]),
    );
    expect(done.timing.summary.medianSecondsTo.COMPLETED).toBe(1);
    expect(calibrate(done).settings.delaysMs).toEqual({ processing: 0, outcome: 0 });
  });

  it('give PENDING no time when the polls first saw the order PROCESSING', () => {
    const late = baseline(
      withPolls([
        ['PROCESSING', 3],
        ['COMPLETED', 6],
      ]),
    );
    expect(calibrate(late).settings.delaysMs).toMatchObject({ processing: 0, outcome: 6000 });
  });

  it('time a refund from the first FAILED the polls saw', () => {
    const failed = baseline(
      withPolls([
        ['PENDING', 0],
        ['FAILED', 2],
        ['REFUNDED', 4],
      ]),
    );
    expect(calibrate(failed).settings.delaysMs).toMatchObject({ outcome: 2000, refund: 2000 });
  });
});

describe('a calibrated failure rate', () => {
  it('is the share of orders whose last seen status failed', () => {
    const failed = baseline(
      withPolls([
        ['PENDING', 0],
        ['FAILED', 2],
        ['REFUNDED', 4],
      ]),
    );
    const { settings, table } = calibrate(failed);
    expect(settings.failureRate).toBe(1);
    expect(table.find((row) => row.setting === 'failureRate')?.evidence?.observed).toBe(
      '1 of 1 orders failed',
    );
    expect(calibrate(baseline(VALUES_A)).settings.failureRate).toBe(0);
  });

  it('is not learnt from a simulator whose outcomes the suite forced with rules', () => {
    const forced = baseline(withPolls([['FAILED', 2]]));
    forced.target = { ...forced.target, simulator: true, capabilities: ['rules'] };
    expect(calibrate(forced).settings.failureRate).toBeUndefined();
  });
});

const refused = (code: number) => ({ code, msg: 'refused', time: '1741801809', data: null });

/** A refused request as sent: method, path, query and whether it carried a key. */
function sent(
  method: string,
  path: string,
  query: Record<string, string> = {},
  { status = 400, code = 20002, key = 'key-1' }: { status?: number; code?: number; key?: string | null } = {},
): Interaction {
  const i = exchange('x', refused(code), { method, path, query, status });
  if (key === null) delete i.request.apiKeyAlias;
  else i.request.apiKeyAlias = key;
  return i;
}

describe('rejectionKind', () => {
  const none = new Set<string>();
  const order = { pledgeAddress: ADDRESS, rentalCount: '65000', period: '1h' };

  it.each([
    ['an unknown path under /v1', sent('GET', '/v1/nope', {}, { status: 404 }), 'notFound'],
    ['the order path read with GET', sent('GET', '/v1/tron/order', {}, { status: 405 }), 'methodNotAllowed'],
    ['a request without a key', sent('GET', '/v1/account', {}, { status: 401, key: null }), 'apiKeyMissing'],
    [
      'a price without its period',
      sent('GET', '/v1/tron/price', { rentalCount: '65000' }),
      'parameterMissing',
    ],
    [
      'an order without its address',
      sent('POST', '/v1/tron/order', { rentalCount: '65000', period: '1h' }),
      'parameterMissing',
    ],
    ['a history with neither identifier', sent('GET', '/v1/tron/history'), 'parameterMissing'],
    [
      'an order below the minimum',
      sent('POST', '/v1/tron/order', { ...order, rentalCount: '100' }),
      'belowMinimum',
    ],
    [
      'a history naming no order',
      sent('GET', '/v1/tron/history', { orderId: 'x' }, { status: 404 }),
      'orderNotFound',
    ],
    [
      'an order the balance cannot pay',
      sent('POST', '/api/v1/tron/order', order, { status: 402, code: 30001 }),
      'insufficientBalance',
    ],
    [
      'a price with a bad period',
      sent('GET', '/v1/tron/price', { rentalCount: '65000', period: '2h' }),
      'parameterInvalid',
    ],
  ] as const)('classifies %s by what it sent', (_what, interaction, kind) => {
    expect(rejectionKind(interaction, none)).toBe(kind);
  });

  it('tells a key the recording never issued from a missing one', () => {
    expect(
      rejectionKind(sent('GET', '/v1/account', {}, { status: 401, key: 'key-9' }), new Set(['key-9'])),
    ).toBe('apiKeyUnknown');
  });

  it('leaves a path outside the API, a 5xx and a success unclassified', () => {
    expect(rejectionKind(sent('GET', '/health', {}, { status: 404 }), none)).toBeUndefined();
    expect(rejectionKind(sent('GET', '/v1/account', {}, { status: 503 }), none)).toBeUndefined();
    expect(
      rejectionKind(
        exchange('getAccount', { code: 0, msg: 'ok', time: '1', data: {} }, { path: '/v1/account' }),
        none,
      ),
    ).toBeUndefined();
  });
});
