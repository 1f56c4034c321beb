/**
 * The live dashboard end to end: a real simulator on a socket, Debian's Chromium driven
 * by playwright-core, orders made through the API and watched on the page.
 *
 * Needs /usr/bin/chromium (`npm run ensure:chromium`, which `npm test` runs first).
 * Screenshots go to test-artifacts/; with UPDATE_SCREENSHOTS=1 also to docs/screenshots/.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  accountRow,
  createOrder,
  decimal,
  openDashboard,
  requireBrowser,
  ROOT,
  row,
  saveScreenshot,
  startServer,
  text,
  useBrowser,
  WAIT_MS,
  waitForStatus,
} from '../test-support/dashboard-e2e-test-support.ts';
import { ADDRESS, OTHER_ADDRESS } from '../test-support/fixtures.ts';

useBrowser();

describe('the live dashboard in Chromium', () => {
  it('shows an order reach COMPLETED, the balances, and works its controls (real clock)', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'real', timing: 'fast' });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      const demoWallet: string = (await server.call('GET', '/_sim/accounts')).accounts[0].walletAddress;

      // A real clock cannot be advanced: the control says so.
      expect(await page.locator('[data-testid="advance-button"]').isDisabled()).toBe(true);
      expect(await text(page, '[data-testid="advance-hint"]')).toMatch(/clock is real/);
      expect(await text(page, '[data-testid="clock-mode"]')).toMatch(/real/i);

      // An order through the API, watched on the page until COMPLETED.
      const order = await createOrder(server, { outOrderNo: 'e2e-0001' });
      await waitForStatus(page, order.id, 'COMPLETED');
      const history = await server.call('GET', `/v1/tron/history?orderId=${order.id}`, {
        apiKey: 'demo-key',
      });
      expect(history.data.status).toBe('COMPLETED');
      expect(
        await page.locator(`${row(order.id)} [data-testid="order-txid"]`).getAttribute('title'),
      ).toContain(history.data.txId);
      expect(
        await page
          .locator(`${row(order.id)} [data-testid="timeline-step"]`)
          .evaluateAll((els) => els.map((el) => el.getAttribute('data-status'))),
      ).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
      expect(await text(page, `${row(order.id)} [data-testid="order-outorderno"]`)).toBe('e2e-0001');

      // 1000 TRX deposited; the order's price is spent.
      const price = Math.round(order.amount * 100);
      const demo = accountRow(demoWallet);
      await page
        .locator(`${demo} [data-testid="balance-trx-available"]`, { hasText: decimal(100_000 - price) })
        .waitFor({ timeout: WAIT_MS });
      expect(await text(page, `${demo} [data-testid="balance-trx-available"]`)).toBe(
        decimal(100_000 - price),
      ); // 995.77 for 4.23
      expect(await text(page, `${demo} [data-testid="balance-trx-frozen"]`)).toBe('0');
      expect(await text(page, `${demo} [data-testid="balance-trx-spent"]`)).toBe(decimal(price));
      expect(await text(page, `${demo} [data-testid="balance-usdt-available"]`)).toBe('100');
      expect(await text(page, `${demo} [data-testid="account-orders"]`)).toBe('1');
      expect(
        await text(
          page,
          `[data-testid="address-row"][data-address="${ADDRESS}"] [data-testid="address-state"]`,
        ),
      ).toBe('activated');

      // "Create account": the key is shown once, and it works.
      await page.fill('[data-testid="create-trx"]', '250');
      await page.fill('[data-testid="create-usdt"]', '12.5');
      await page.click('[data-testid="create-account-button"]');
      const keyLocator = page.locator('[data-testid="created-api-key"]');
      await keyLocator.waitFor({ state: 'visible', timeout: WAIT_MS });
      const apiKey = await keyLocator.innerText();
      expect(apiKey.length).toBeGreaterThanOrEqual(8);
      const created = await server.call('GET', '/v1/account', { apiKey });
      const newWallet: string = created.data.walletAddress;
      await page
        .locator(`${accountRow(newWallet)} [data-testid="balance-trx-available"]`, { hasText: '250' })
        .waitFor({ timeout: WAIT_MS });
      expect(await text(page, `${accountRow(newWallet)} [data-testid="balance-usdt-available"]`)).toBe(
        '12.5',
      );
      expect(await page.locator('[data-testid="account-row"]').count()).toBe(2);

      // "Add failure rule": the next order with that outOrderNo fails and is refunded.
      await page.selectOption('[data-testid="rule-match-kind"]', 'outOrderNo');
      await page.fill('[data-testid="rule-match-value"]', 'e2e-doomed');
      await page.fill('[data-testid="rule-times"]', '1');
      await page.click('[data-testid="add-rule-button"]');
      const ruleRow = page.locator('[data-testid="rule-row"]', { hasText: 'e2e-doomed' });
      await ruleRow.waitFor({ timeout: WAIT_MS });
      expect(await ruleRow.locator('[data-testid="rule-outcome"]').innerText()).toBe('FAILED');
      expect(await text(page, '[data-testid="rule-result"]')).toMatch(/^Added rule-1/);
      const doomed = await createOrder(server, { outOrderNo: 'e2e-doomed' });
      await waitForStatus(page, doomed.id, 'REFUNDED');
      await ruleRow.waitFor({ state: 'detached', timeout: WAIT_MS }); // used up
      expect(
        await page
          .locator(`${row(doomed.id)} [data-testid="timeline-step"]`)
          .evaluateAll((els) => els.map((el) => el.getAttribute('data-status'))),
      ).toEqual(['PENDING', 'PROCESSING', 'FAILED', 'REFUNDED']);
      expect(await text(page, `${demo} [data-testid="balance-trx-available"]`)).toBe(
        decimal(100_000 - price),
      );
      expect(await text(page, `${demo} [data-testid="balance-trx-spent"]`)).toBe(decimal(price));

      // A little more for the screenshot: an order held open by a slow rule (PENDING for half its delay), an
      // order of the new account, and an injected fault.
      await server.call('POST', '/_sim/rules', {
        json: { match: { outOrderNo: 'e2e-slow' }, outcome: 'COMPLETED', delayMs: 600_000 },
      });
      await server.call('POST', '/_sim/faults', {
        json: { operation: 'getPrice', latencyMs: 200, latencyMaxMs: 800, times: 5 },
      });
      const other = await createOrder(server, {
        apiKey,
        pledgeAddress: OTHER_ADDRESS,
        rentalCount: 130_000,
        period: '1d',
        outOrderNo: 'shop-7731',
      });
      const slow = await createOrder(server, {
        outOrderNo: 'e2e-slow',
        rentalCount: 100_000,
        period: '10min',
      });
      await waitForStatus(page, other.id, 'COMPLETED');
      await waitForStatus(page, slow.id, 'PENDING');
      await page.locator('[data-testid="fault-row"]').waitFor({ timeout: WAIT_MS });
      await page
        .locator(`${demo} [data-testid="balance-trx-frozen"]`, {
          hasText: decimal(Math.round(slow.amount * 100)),
        })
        .waitFor({ timeout: WAIT_MS });
      await page.locator('[data-testid="journal-row"]').first().waitFor({ timeout: WAIT_MS });
      await page.waitForTimeout(1700); // let the row highlight fade

      for (const target of saveScreenshot('dashboard.png'))
        await page.screenshot({ path: target, fullPage: true });
      expect(existsSync(path.join(ROOT, 'test-artifacts', 'dashboard.png'))).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);

  it('drives a manual clock from the advance control', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual', timing: 'realistic' });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      expect(await text(page, '[data-testid="clock-mode"]')).toMatch(/manual/i);
      expect(await page.locator('[data-testid="advance-button"]').isEnabled()).toBe(true);
      const before = await text(page, '[data-testid="clock-now"]');

      const order = await createOrder(server, {});
      await waitForStatus(page, order.id, 'PENDING');
      expect(await page.locator(`${row(order.id)} [data-testid="timeline-next"]`).count()).toBe(1);

      // Realistic timing: delivered 3 to 6 s after creation, +1 s for the activation.
      await page.fill('[data-testid="advance-ms"]', '7000');
      await page.click('[data-testid="advance-button"]');
      await waitForStatus(page, order.id, 'COMPLETED');
      await page
        .locator('[data-testid="advance-result"]', { hasText: 'Clock moved 7 s' })
        .waitFor({ timeout: WAIT_MS });
      expect(await text(page, '[data-testid="clock-now"]')).not.toBe(before);
      expect(server.sim.clock.now()).toBe(1_741_801_809_000 + 7000);
      const wallet = server.sim.engine.accounts()[0]!.walletAddress;
      expect(await text(page, `${accountRow(wallet)} [data-testid="balance-trx-spent"]`)).toBe('4.23');

      // A refused call shows the simulator's message.
      await page.fill('[data-testid="advance-ms"]', '99999999999999');
      await page.click('[data-testid="advance-button"]');
      await page.locator('[data-testid="advance-result"].error').waitFor({ timeout: WAIT_MS });
      expect(await text(page, '[data-testid="advance-result"]')).toMatch(/ms/);
      for (const target of saveScreenshot('dashboard-manual.png'))
        await page.screenshot({ path: target, fullPage: true });
      expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);

  it('takes the control token from its address and keeps it for the session', async () => {
    const context = await requireBrowser().newContext();
    const server = await startServer({ clock: 'manual', control: { token: 's3cret' } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/_sim/ui`);
      await page.locator('[data-testid="auth-banner"]', { hasText: 'token' }).waitFor({ timeout: WAIT_MS });

      await page.goto(`${server.url}/_sim/ui?token=s3cret`);
      await page.locator('body[data-loaded="true"]').waitFor({ timeout: WAIT_MS });
      await page.locator('[data-testid="connection"]', { hasText: 'live' }).waitFor({ timeout: WAIT_MS });
      expect(page.url()).toBe(`${server.url}/_sim/ui`); // taken out of the address bar
      expect(await page.locator('[data-testid="auth-banner"]').isHidden()).toBe(true);

      // Still live after a reload without it, through the event stream's ?token=.
      await page.reload();
      await page.locator('[data-testid="connection"]', { hasText: 'live' }).waitFor({ timeout: WAIT_MS });
      const order = await createOrder(server, {});
      await waitForStatus(page, order.id, 'PENDING');
    } finally {
      await context.close();
      await server.close();
    }
  }, 60_000);
});
