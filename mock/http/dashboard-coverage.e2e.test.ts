/**
 * The dashboard's behaviour coverage panel end to end: API calls on a socket, the table
 * on the page following them live.
 *
 * Needs /usr/bin/chromium (`npm run ensure:chromium`, which `npm test` runs first).
 */
import { describe, expect, it } from 'vitest';
import {
  openDashboard,
  requireBrowser,
  startServer,
  text,
  useBrowser,
  WAIT_MS,
} from '../test-support/dashboard-e2e-test-support.ts';

useBrowser();

const cell = (id: string): string => `[data-testid="coverage"] tr[data-id="${id}"]`;

describe('the behaviour coverage panel in Chromium', () => {
  it('lists every behaviour as never, then counts what API calls exercised, live', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual', timing: 'fast' });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      await page.locator(`${cell('op:getPrice')}[data-state="never"]`).waitFor({ timeout: WAIT_MS });
      await server.call('GET', '/v1/tron/price?rentalCount=65000&period=1h', { apiKey: 'demo-key' });
      // A rejection: the helper throws on the 400, the panel counts it.
      await expect(
        server.call('GET', '/v1/tron/price?rentalCount=65000&period=2h', { apiKey: 'demo-key' }),
      ).rejects.toThrow(/HTTP 400/);
      await page.locator(`${cell('op:getPrice')}[data-state="exercised"]`).waitFor({ timeout: WAIT_MS });
      expect(await text(page, `${cell('op:getPrice')} td.num`)).toBe('1');
      await page
        .locator(`${cell('rejection:parameterInvalid')}[data-state="exercised"]`)
        .waitFor({ timeout: WAIT_MS });
      expect(await text(page, '[data-testid="coverage-summary"]')).toMatch(/^2 exercised, \d+ never/);
      expect(await text(page, `${cell('ratelimit')} td:last-child`)).toMatch(
        /^impossible: rateLimit is null/,
      );
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  });
});
