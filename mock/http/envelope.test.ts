import { describe, expect, it } from 'vitest';
import { createManualClock } from '../engine/manual-clock.ts';
import { createEngine } from '../engine/index.ts';
import { envelopeText, envelopeTime } from './envelope.ts';

describe('envelopeText', () => {
  const engine = createEngine({ clock: createManualClock(Date.UTC(2025, 2, 12, 17, 50, 9, 999)) });

  it.each([
    ['a success message', 'Get price successfully', { sun: '65', rentalCount: 65_000 }, 0],
    ['the account success code switch', 'Get user information successfully', { name: 'User-T' }, 1],
    ['a message with quotes, a backslash and non-ASCII', 'say "hi" \\ – ✓', [1, 'two', null], 0],
  ])('writes exactly what JSON.stringify writes for the envelope: %s', (_name, msg, data, code) => {
    expect(envelopeText(engine, msg, JSON.stringify(data), code)).toBe(
      JSON.stringify({ code, msg, time: envelopeTime(engine), data }),
    );
  });

  it('stamps the time from the engine clock in Unix seconds', () => {
    expect(JSON.parse(envelopeText(engine, 'ok', 'null')).time).toBe('1741801809');
  });
});
