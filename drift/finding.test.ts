import { describe, expect, it } from 'vitest';
import { CALIBRATION_HINTS, calibrationSetting, type HintedFinding } from './finding.ts';

const ok = 'HTTP 2xx, code 0';

/** One finding of each class calibration learns, and the setting drift must name for it. */
const EXAMPLES: Array<[string, HintedFinding, string]> = [
  [
    'the envelope time in ms',
    {
      kind: 'format-changed',
      operation: 'getPrice',
      path: '/time',
      response: ok,
      old: 'time in s',
      new: 'time in ms',
    },
    'envelopeTimeUnit',
  ],
  [
    'createdAt in seconds',
    { kind: 'format-changed', operation: 'getOrderHistory', path: '/data/createdAt', response: ok },
    'createdAtUnit',
  ],
  [
    'fixed decimals',
    {
      kind: 'format-changed',
      operation: 'getAccount',
      path: '/data/balance/available/trx',
      response: ok,
      old: '0 to 2 decimals',
      new: 'always 6 decimals',
    },
    'decimals',
  ],
  [
    'an undocumented field the service sends',
    { kind: 'field-removed', operation: 'getPrice', path: '/data/minRentalCount', response: ok },
    'extraFields',
  ],
  [
    'an undocumented field the simulator sends',
    { kind: 'field-added', operation: 'getAccount', path: '/data/level', response: ok },
    'extraFields',
  ],
  [
    'a rejection with another code',
    { kind: 'code-changed', operation: 'getPrice', path: '/code', response: 'HTTP 200' },
    'errors (the error catalogue)',
  ],
  [
    'a rejection with another message',
    { kind: 'message-changed', operation: 'getPrice', path: '/msg', response: 'HTTP 4xx, code 20002' },
    'errors (the error catalogue)',
  ],
  [
    'a rejection whose body is no longer an envelope',
    { kind: 'type-changed', operation: 'getAccount', path: '', response: 'HTTP 4xx' },
    'errors (the error catalogue)',
  ],
  [
    'a wrong method answered otherwise',
    { kind: 'response-changed', operation: 'DELETE /v1/account', path: '' },
    'unknownPath and errors.notFound (errors.methodNotAllowed for a wrong method)',
  ],
  [
    'a status path the simulator does not show',
    { kind: 'new-status-path', operation: 'getOrderHistory', path: '/data/status' },
    'hiddenStatuses and delaysMs',
  ],
  [
    'a txId where the service failed its orders',
    {
      kind: 'format-changed',
      operation: 'getOrderHistory',
      path: '/data/txId',
      response: ok,
      old: 'empty',
      new: 'hex64',
    },
    'failureRate',
  ],
  ['a timing shift', { kind: 'timing-shift', operation: 'getOrderHistory', path: '' }, 'delaysMs'],
  [
    'the other identifier winning in history',
    {
      kind: 'response-changed',
      operation: 'getOrderHistory',
      path: '',
      old: 'HTTP 404/40401',
      new: 'HTTP 200/code 0',
    },
    'historyPrefers',
  ],
  [
    'a quantity priced where the service refused it',
    {
      kind: 'response-changed',
      operation: 'getPrice',
      path: '',
      old: 'HTTP 200 (code 40003)',
      new: 'HTTP 200 (code 0)',
    },
    'maxRentalCount and priceMinimum',
  ],
  [
    'another currency paid',
    { kind: 'format-changed', operation: 'createOrder', path: '/data/currency', response: ok },
    'whenTrxShort',
  ],
  [
    'the account answering code 1',
    { kind: 'code-changed', operation: 'getAccount', path: '/code', response: 'HTTP 200' },
    'accountSuccessCode',
  ],
];

describe("drift's hint of the setting calibration would learn", () => {
  it.for(EXAMPLES)('names it for %s', ([, finding, setting]) => {
    expect(calibrationSetting(finding)).toBe(setting);
  });

  it('names none for a change of a documented shape', () => {
    expect(
      calibrationSetting({ kind: 'field-removed', operation: 'getPrice', path: '/data/sun', response: ok }),
    ).toBeUndefined();
    expect(
      calibrationSetting({
        kind: 'type-changed',
        operation: 'getPrice',
        path: '/data/rentalCount',
        response: ok,
      }),
    ).toBeUndefined();
    expect(
      calibrationSetting({ kind: 'message-changed', operation: 'getPrice', path: '/msg', response: ok }),
    ).toBeUndefined();
  });

  it('has an example of every class it knows', () => {
    const named = new Set(EXAMPLES.map(([, , setting]) => setting));
    expect(CALIBRATION_HINTS.filter((hint) => !named.has(hint.setting)).map((h) => h.class)).toEqual([]);
  });
});
