/**
 * The dashboard in proxy mode, end to end in Chromium: the engine's panels and controls
 * are hidden, and a note counts the forwarded traffic the journal lists.
 */
import { describe, expect, it } from 'vitest';
import {
  openDashboard,
  requireBrowser,
  startServer,
  useBrowser,
  WAIT_MS,
} from '../test-support/dashboard-e2e-test-support.ts';
import { createSimulator } from '../simulator.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

useBrowser();

describe('the dashboard of a proxy', () => {
  it('shows the forwarded traffic instead of the local accounts, orders and engine controls', async () => {
    requireBrowser();
    const upstream = createSimulator({ clock: 'manual', timing: 'instant', seed: 5 });
    const server = await startServer({
      clock: 'manual',
      proxy: { upstream: 'http://upstream.test', fetch: upstream.fetch, allowSpend: true },
    });
    const order = await fetch(`${server.url}/v1/tron/order`, {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
      body: `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h`,
    });
    expect(order.status).toBe(200);
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      const note = page.locator('[data-testid="mode-note"]');
      await note.waitFor({ state: 'visible', timeout: WAIT_MS });
      expect(await note.textContent()).toMatch(
        /^Proxy mode: every API call is forwarded to http:\/\/upstream\.test\. 1 forwarded, 0 order creations refused/,
      );
      for (const hidden of [
        'accounts-panel',
        'orders-panel',
        'addresses-panel',
        'rule-form',
        'advance-form',
        'account-form',
      ])
        expect(await page.locator(`[data-testid="${hidden}"]`).isVisible(), hidden).toBe(false);
      for (const shown of ['journal-panel', 'fault-form', 'config-form'])
        expect(await page.locator(`[data-testid="${shown}"]`).isVisible(), shown).toBe(true);
      const forwarded = page.locator('[data-testid="journal-row"]', { hasText: '/v1/tron/order' }).first();
      await forwarded.waitFor({ timeout: WAIT_MS });
      // The key went upstream and is kept nowhere: the copy says where to put one.
      await forwarded.click();
      await page.locator('[data-testid="curl-note"]', { hasText: /\S/ }).waitFor({ timeout: WAIT_MS });
      expect(await page.locator('[data-testid="curl-command"]').textContent()).toContain(
        "'API-KEY: <API_KEY>'",
      );
      expect(await page.locator('[data-testid="curl-note"]').textContent()).toBe(
        'Replace <API_KEY> with your key of the upstream: the proxy passes it on and keeps none.',
      );
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);
});
