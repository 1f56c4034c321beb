import { describe, expect, it } from 'vitest';
import { computeTiming } from './order-observations.ts';
import type { Interaction } from './recording.ts';

function history(orderId: string, status: string, time: string, createdAt: number): Interaction {
  return {
    case: 'c',
    file: 'f.ts',
    operation: 'getOrderHistory',
    request: { method: 'GET', path: '/v1/tron/history', query: { orderId } },
    response: {
      status: 200,
      headers: {},
      body: { code: 0, msg: 'ok', time, data: { orderId, status, createdAt } },
    },
    at: '2026-11-24T10:00:00.000Z',
    durationMs: 1,
  };
}

describe('computeTiming', () => {
  it('never gives a negative duration when the envelope time has whole seconds and createdAt milliseconds', () => {
    // Created at …715.548 s, seen PROCESSING in the answer stamped …715 (the same second).
    const timing = computeTiming([
      history('OR1', 'PROCESSING', '1795316715', 1_795_316_715_548),
      history('OR1', 'COMPLETED', '1795316717', 1_795_316_715_548),
    ]);
    expect(timing.orders[0]!.secondsToStatus).toEqual({ PROCESSING: 0, COMPLETED: 2 });
    expect(timing.summary.medianSecondsTo.PROCESSING).toBe(0);
    expect(timing.resolutionSeconds).toBe(1);
  });

  it('keeps milliseconds when the server stamps its answers in milliseconds', () => {
    const timing = computeTiming([history('OR1', 'PROCESSING', '1795316716048', 1_795_316_715_548)]);
    expect(timing.orders[0]!.secondsToStatus).toEqual({ PROCESSING: 0.5 });
    expect(timing.resolutionSeconds).toBe(0.001);
  });
});
