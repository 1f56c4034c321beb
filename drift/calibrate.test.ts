/**
 * Calibration's lifecycle delays: the recorded medians are upper bounds, to a whole second
 * where the service's times have whole seconds; a status no poll caught is given no time.
 */
import { describe, expect, it } from 'vitest';
import { baseline, VALUES_A, type BaselineValues } from '../recording/test-support.ts';
import { calibrate } from './calibrate.ts';

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
