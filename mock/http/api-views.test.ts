import { describe, expect, it } from 'vitest';
import { createManualClock } from '../engine/manual-clock.ts';
import { createEngine } from '../engine/index.ts';
import { envelope, envelopeTime } from './api-views.ts';

describe('the envelope', () => {
  const engine = createEngine({ clock: createManualClock(Date.UTC(2025, 2, 12, 17, 50, 9, 999)) });

  it('holds the code, the message, the time and the data, in that order', () => {
    expect(JSON.stringify(envelope(engine, 1, 'Get user information successfully', { name: 'User-T' }))).toBe(
      '{"code":1,"msg":"Get user information successfully","time":"1741801809","data":{"name":"User-T"}}',
    );
  });

  it('stamps the time from the engine clock in Unix seconds, or in ms when the settings say so', () => {
    expect(envelopeTime(engine)).toBe('1741801809');
    engine.updateSettings({ envelopeTimeUnit: 'ms' });
    expect(envelopeTime(engine)).toBe('1741801809999');
  });
});
