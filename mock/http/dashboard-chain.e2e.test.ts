/**
 * The dashboard shows beside each order what the simulated TRON node shows of it: the
 * energy on chain until its expiry, and in the order's detail the address on chain.
 * Screenshot: docs/screenshots/dashboard-chain.png (UPDATE_SCREENSHOTS=1).
 */
import { describe, expect, it } from 'vitest';
import { PERIOD_MS } from '../engine/index.ts';
import {
  WAIT_MS,
  createOrder,
  openDashboard,
  requireBrowser,
  row,
  saveScreenshot,
  startServer,
  text,
  useBrowser,
  waitForStatus,
} from '../test-support/dashboard-e2e-test-support.ts';
import { ADDRESS } from '../test-support/fixtures.ts';

useBrowser();

describe('the dashboard chain view', () => {
  it('shows an order energy on chain, the address on chain in its detail, and the reclaim', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual', timing: 'realistic' });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      const order = await createOrder(server, {});
      await server.call('POST', '/_sim/clock/advance', { json: { ms: 7000 } });
      await waitForStatus(page, order.id, 'COMPLETED');
      const note = page.locator(`${row(order.id)} [data-testid="order-chain"]`);
      await note.waitFor({ timeout: WAIT_MS });
      expect(await note.innerText()).toMatch(/^on chain until \d\d:\d\d:\d\d$/);

      await page.click(row(order.id));
      const energy = page.locator('[data-testid="order-detail-chain-energy"]');
      await energy.waitFor({ timeout: WAIT_MS });
      expect(await energy.innerText()).toBe('65,000 (EnergyLimit)');
      expect(await text(page, '[data-testid="order-detail-chain-account"]')).toMatch(
        /^since .* \(not yet in confirmed blocks\)$/,
      );
      expect(await page.locator('[data-testid="order-detail-delegation"]').getAttribute('data-state')).toBe(
        'delegated',
      );
      expect(await text(page, '[data-testid="order-detail-chain"]')).toContain(ADDRESS);
      const panels = await Promise.all(
        ['orders-panel', 'order-detail'].map((id) => page.locator(`[data-testid="${id}"]`).boundingBox()),
      );
      const [top, bottom] = panels as [NonNullable<(typeof panels)[0]>, NonNullable<(typeof panels)[0]>];
      for (const target of saveScreenshot('dashboard-chain.png'))
        await page.screenshot({
          path: target,
          fullPage: true,
          clip: { x: top.x, y: top.y, width: top.width, height: bottom.y + bottom.height - top.y },
        });

      await server.call('POST', '/_sim/clock/advance', { json: { ms: PERIOD_MS['1h'] } });
      await page
        .locator(`${row(order.id)} [data-testid="order-chain"]`, { hasText: 'reclaimed' })
        .waitFor({ timeout: WAIT_MS });
      await page
        .locator('[data-testid="order-detail-delegation"][data-state="expired"]')
        .waitFor({ timeout: WAIT_MS });
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);
});
