/**
 * The dashboard as a workbench, end to end in Chromium: every control driven from the
 * page and checked through the control plane, the journal's filters and detail, the
 * order detail, the proxy-mode hook, hostile strings, and the narrow layout.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  createOrder,
  openDashboard,
  requireBrowser,
  row,
  saveScreenshot,
  startServer,
  text,
  useBrowser,
  WAIT_MS,
  waitForStatus,
} from '../test-support/dashboard-e2e-test-support.ts';
import { OTHER_ADDRESS } from '../test-support/fixtures.ts';

useBrowser();

const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

async function resultSays(page: Page, testid: string, pattern: RegExp): Promise<void> {
  await page.locator(`[data-testid="${testid}"]`, { hasText: pattern }).waitFor({ timeout: WAIT_MS });
}

/**
 * What is wrong with the page's layout as it stands: tables wider than their panel, input
 * placeholders wider than their field, and visible buttons with less than 4 px between them.
 */
async function layoutFaults(page: Page) {
  return page.evaluate(() => {
    const shown = (el: Element): boolean => (el as HTMLElement).offsetParent !== null;
    const overflowingTables = [...document.querySelectorAll('.table-wrap')]
      .filter((wrap) => shown(wrap) && wrap.scrollWidth > wrap.clientWidth)
      .map(
        (wrap) =>
          `${wrap.closest('section')?.getAttribute('data-testid')}: ${wrap.scrollWidth - wrap.clientWidth} px`,
      );
    const context = document.createElement('canvas').getContext('2d')!;
    const cutPlaceholders = [...document.querySelectorAll<HTMLInputElement>('input[placeholder]')]
      .filter((input) => {
        if (!shown(input)) return false;
        const style = getComputedStyle(input);
        context.font = `${style.fontSize} ${style.fontFamily}`;
        const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return context.measureText(input.placeholder).width > room;
      })
      .map((input) => `${input.getAttribute('data-testid')}: ${input.placeholder}`);
    const buttons = [...document.querySelectorAll('button')].filter(shown);
    const flushButtons: string[] = [];
    for (const [i, a] of buttons.entries())
      for (const b of buttons.slice(i + 1)) {
        const ra = a.getBoundingClientRect();
        const rb = b.getBoundingClientRect();
        const gapX = Math.max(rb.left - ra.right, ra.left - rb.right);
        const gapY = Math.max(rb.top - ra.bottom, ra.top - rb.bottom);
        if (gapX < 4 && gapY < 4) flushButtons.push(`${a.textContent} | ${b.textContent}`);
      }
    return { overflowingTables, cutPlaceholders, flushButtons };
  });
}

describe('the dashboard as a workbench', () => {
  it('adds, deletes and clears rules and faults, sets the supply and addresses, clears the journal and resets', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual' });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      // A COMPLETED rule with a delay and a count.
      await page.fill('[data-testid="rule-match-value"]', 'shop-ok');
      await page.selectOption('[data-testid="rule-outcome-select"]', 'COMPLETED');
      await page.fill('[data-testid="rule-delay"]', '2500');
      await page.fill('[data-testid="rule-times"]', '3');
      await button(page, 'Add rule').click();
      await resultSays(page, 'rule-result', /^Added rule-1: matching orders will complete/);
      expect((await server.call('GET', '/_sim/rules')).rules).toEqual([
        {
          id: 'rule-1',
          match: { outOrderNo: 'shop-ok' },
          outcome: 'COMPLETED',
          delayMs: 2500,
          times: 3,
          used: 0,
        },
      ]);

      // Delete that one; then two more, cleared at once.
      await page.getByRole('button', { name: 'Delete rule-1' }).click();
      await resultSays(page, 'rule-result', /Deleted rule-1/);
      expect((await server.call('GET', '/_sim/rules')).rules).toEqual([]);
      for (const value of ['a-1', 'a-2']) {
        await page.fill('[data-testid="rule-match-value"]', value);
        await button(page, 'Add rule').click();
        await page.locator('[data-testid="rule-row"]', { hasText: value }).waitFor({ timeout: WAIT_MS });
      }
      expect((await server.call('GET', '/_sim/rules')).rules).toHaveLength(2);
      await button(page, 'Clear rules').click();
      await resultSays(page, 'sim-result', /Every rule is deleted/);
      expect((await server.call('GET', '/_sim/rules')).rules).toEqual([]);

      // A fault of every kind, each with its operation, times and probability.
      const kinds: {
        fill: Record<string, string>;
        select: Record<string, string>;
        uncheck?: boolean;
        uncheckRetryAfter?: boolean;
        want: Record<string, unknown>;
      }[] = [
        {
          select: { 'fault-operation': 'getPrice', 'fault-response': '' },
          fill: { 'fault-latency': '100', 'fault-latency-max': '300' },
          want: { operation: 'getPrice', latencyMs: 100, latencyMaxMs: 300 },
        },
        {
          select: { 'fault-operation': 'createOrder', 'fault-response': 'status', 'fault-status': '429' },
          fill: { 'fault-retry-after': '2', 'fault-times': '2', 'fault-probability': '0.5' },
          uncheck: true,
          want: {
            operation: 'createOrder',
            response: 'status',
            status: 429,
            retryAfter: 2,
            withBody: false,
            times: 2,
            probability: 0.5,
          },
        },
        {
          select: { 'fault-operation': 'getAccount', 'fault-response': 'status', 'fault-status': '502' },
          fill: {},
          want: { operation: 'getAccount', response: 'status', status: 502 },
        },
        {
          select: { 'fault-operation': 'getOrderHistory', 'fault-response': 'malformed' },
          fill: { 'fault-times': '1' },
          want: { operation: 'getOrderHistory', response: 'malformed', times: 1 },
        },
        {
          select: { 'fault-operation': '*', 'fault-response': 'truncated' },
          fill: { 'fault-probability': '0.25' },
          want: { operation: '*', response: 'truncated', probability: 0.25 },
        },
        {
          select: { 'fault-operation': 'getPrice', 'fault-response': 'drop' },
          fill: {},
          want: { operation: 'getPrice', response: 'drop' },
        },
        {
          select: { 'fault-operation': 'getAccount', 'fault-response': 'reset' },
          fill: {},
          want: { operation: 'getAccount', response: 'reset' },
        },
        {
          select: { 'fault-operation': 'getPrice', 'fault-response': 'garbage' },
          fill: { 'fault-garbage-bytes': '32' },
          want: { operation: 'getPrice', response: 'garbage', garbageBytes: 32 },
        },
        {
          select: { 'fault-operation': 'createOrder', 'fault-response': 'drip' },
          fill: { 'fault-drip-ms': '2000', 'fault-drip-chunks': '8' },
          want: { operation: 'createOrder', response: 'drip', dripMs: 2000, dripChunks: 8 },
        },
        {
          select: { 'fault-operation': '*', 'fault-response': '' },
          fill: { 'fault-latency-median': '120', 'fault-latency-sigma': '0.8' },
          want: { operation: '*', latencyMedianMs: 120, latencySigma: 0.8 },
        },
        {
          select: { 'fault-operation': 'getAccount', 'fault-response': 'status', 'fault-status': '429' },
          fill: {},
          uncheckRetryAfter: true,
          want: { operation: 'getAccount', response: 'status', status: 429, withRetryAfter: false },
        },
      ];
      for (const [i, kind] of kinds.entries()) {
        await page.locator('#fault-form').evaluate((form: HTMLFormElement) => form.reset());
        for (const [id, value] of Object.entries(kind.select))
          await page.selectOption(`[data-testid="${id}"]`, value);
        for (const [id, value] of Object.entries(kind.fill)) await page.fill(`[data-testid="${id}"]`, value);
        if (kind.uncheck) await page.uncheck('[data-testid="fault-with-body"]');
        if (kind.uncheckRetryAfter) await page.uncheck('[data-testid="fault-with-retry-after"]');
        await button(page, 'Inject fault').click();
        // The message names what the fault hits: its operation, or every operation for '*'.
        const target = kind.want.operation === '*' ? 'every operation' : String(kind.want.operation);
        await resultSays(page, 'fault-result', new RegExp(`^Injected fault-${i + 1} on ${target}\\.$`));
        const faults = (await server.call('GET', '/_sim/faults')).faults;
        expect(faults[i]).toEqual({ id: `fault-${i + 1}`, used: 0, ...kind.want });
      }
      // A refused fault shows the envelope's msg.
      await page.locator('#fault-form').evaluate((form: HTMLFormElement) => form.reset());
      await page.fill('[data-testid="fault-latency"]', '99999999');
      await button(page, 'Inject fault').click();
      await page
        .locator('[data-testid="fault-result"].error', { hasText: /latencyMs/ })
        .waitFor({ timeout: WAIT_MS });
      await page.getByRole('button', { name: 'Delete fault-2' }).click();
      await resultSays(page, 'fault-result', /Deleted fault-2/);
      expect((await server.call('GET', '/_sim/faults')).faults.map((f: { id: string }) => f.id)).toEqual([
        'fault-1',
        'fault-3',
        'fault-4',
        'fault-5',
        'fault-6',
        'fault-7',
        'fault-8',
        'fault-9',
        'fault-10',
        'fault-11',
      ]);
      await page.locator('[data-testid="fault-row"]').first().waitFor({ timeout: WAIT_MS });
      await page.evaluate(() => window.scrollTo(0, 0));
      for (const target of saveScreenshot('dashboard-controls.png'))
        await page.screenshot({ path: target, fullPage: true });
      await button(page, 'Clear faults').click();
      await resultSays(page, 'sim-result', /Every fault is deleted/);
      expect((await server.call('GET', '/_sim/faults')).faults).toEqual([]);

      // The supply: a number, then unlimited.
      await page.fill('[data-testid="supply-energy"]', '130000');
      await button(page, 'Set supply').click();
      await resultSays(page, 'supply-result', /Supply set to 130,000/);
      expect((await server.call('GET', '/_sim/supply')).energy).toBe(130_000);
      await page.fill('[data-testid="supply-energy"]', '');
      await button(page, 'Set supply').click();
      await resultSays(page, 'supply-result', /unlimited/);
      expect((await server.call('GET', '/_sim/supply')).energy).toBeNull();

      // An address: set by hand, then toggled from its row.
      await page.fill('[data-testid="address-input"]', OTHER_ADDRESS);
      await button(page, 'Set address').click();
      await resultSays(page, 'address-result', /is activated now/);
      expect((await server.call('GET', `/_sim/addresses/${OTHER_ADDRESS}`)).activated).toBe(true);
      await page
        .locator(
          `[data-testid="address-row"][data-address="${OTHER_ADDRESS}"] [data-testid="toggle-address"]`,
          { hasText: 'Deactivate' },
        )
        .click();
      await resultSays(page, 'address-result', /is not activated now/);
      expect((await server.call('GET', `/_sim/addresses/${OTHER_ADDRESS}`)).activated).toBe(false);

      // Settings, a deposit by key, the scenario.
      await page.fill('[data-testid="config-patch"]', '{"failureRate":0.2,"prices":{"1h":"70"}}');
      await button(page, 'Update settings').click();
      await resultSays(page, 'config-result', /Settings updated: failureRate, prices/);
      const config = await server.call('GET', '/_sim/config');
      expect([config.failureRate, config.prices['1h']]).toEqual([0.2, '70']);
      await page.fill('[data-testid="config-patch"]', '{"failureRate":7}');
      await button(page, 'Update settings').click();
      await page
        .locator('[data-testid="config-result"].error', { hasText: /failureRate/ })
        .waitFor({ timeout: WAIT_MS });
      const before = (await server.call('GET', '/_sim/accounts/me', { apiKey: 'demo-key' })).ledger.trx
        .available;
      await page.fill('[data-testid="deposit-key"]', 'demo-key');
      await page.fill('[data-testid="deposit-trx"]', '50');
      await button(page, 'Deposit').click();
      await resultSays(page, 'deposit-result', /^Deposited into User-/);
      expect(
        Number((await server.call('GET', '/_sim/accounts/me', { apiKey: 'demo-key' })).ledger.trx.available),
      ).toBe(Number(before) + 50);
      await button(page, 'Show scenario').click();
      await page.locator('[data-testid="scenario"]', { hasText: '"accounts"' }).waitFor({ timeout: WAIT_MS });

      // Clear the journal; then reset everything.
      await createOrder(server, {});
      expect(
        (await server.call('GET', '/_sim/journal')).entries.some(
          (e: { operation?: string }) => e.operation === 'createOrder',
        ),
      ).toBe(true);
      await button(page, 'Clear journal').click();
      await resultSays(page, 'sim-result', /The journal is cleared/);
      expect(
        (await server.call('GET', '/_sim/journal')).entries.some(
          (e: { operation?: string }) => e.operation === 'createOrder',
        ),
      ).toBe(false);
      await server.call('POST', '/_sim/rules', {
        json: { match: { outOrderNo: 'gone-after-reset' }, outcome: 'FAILED' },
      });
      await button(page, 'Reset simulator').click();
      await resultSays(page, 'sim-result', /The simulator is reset/);
      expect((await server.call('GET', '/_sim/rules')).rules).toEqual([]);
      expect((await server.call('GET', '/_sim/orders', { apiKey: 'demo-key' })).orders).toEqual([]);
      expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 90_000);

  it('filters the journal, keeps the filters in the address, and opens an exchange with a curl command', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual' });
    const other = await server.call('POST', '/_sim/accounts', { json: { balance: { trx: '50' } } });
    const mine = await createOrder(server, { outOrderNo: 'shop-4242' });
    await createOrder(server, {
      outOrderNo: 'shop-0007',
      apiKey: other.apiKey,
      pledgeAddress: OTHER_ADDRESS,
    });
    await fetch(`${server.url}/v1/tron/price?rentalCount=65000&period=1h`, {
      headers: { 'API-KEY': 'wrong-key-000' },
    });
    await fetch(`${server.url}/docs`);
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      const rows = page.locator('[data-testid="journal-row"]');
      // The docs page is the page's own kind of traffic: hidden until asked for.
      await rows.first().waitFor({ timeout: WAIT_MS });
      const paths = async (): Promise<string[]> =>
        rows.evaluateAll((els) =>
          els.map((el) => el.querySelector('td:nth-child(2) .mono')!.getAttribute('title')!),
        );
      expect((await paths()).some((p) => p.startsWith('/docs'))).toBe(false);
      await page.check('[data-testid="filter-own"]');
      await expect.poll(async () => (await paths()).some((p) => p.startsWith('/docs'))).toBe(true);
      await page.uncheck('[data-testid="filter-own"]');

      // Free text finds one order by its outOrderNo.
      await page.fill('[data-testid="filter-text"]', 'shop-4242');
      await expect.poll(() => rows.count()).toBe(1);
      expect((await paths())[0]).toContain('outOrderNo=shop-4242');
      await page.fill('[data-testid="filter-text"]', '');
      // Status class and operation.
      await page.selectOption('[data-testid="filter-status"]', '4');
      await expect.poll(() => rows.count()).toBe(1);
      expect(await text(page, '[data-testid="journal-status"]')).toBe('401');
      await page.selectOption('[data-testid="filter-status"]', '2');
      await page.fill('[data-testid="filter-operation"]', 'createOrder');
      await expect.poll(() => rows.count()).toBe(2);
      // Account: the other one's order only.
      await page.selectOption('[data-testid="filter-account"]', other.walletAddress);
      await expect.poll(() => rows.count()).toBe(1);
      expect((await paths())[0]).toContain('shop-0007');

      // The view is in the address: a fresh page restores it.
      const shared = page.url();
      expect(new URL(shared).hash).toContain('op=createOrder');
      const second = await openDashboard(shared);
      try {
        await expect.poll(() => second.page.locator('[data-testid="journal-row"]').count()).toBe(1);
        expect(await second.page.inputValue('[data-testid="filter-operation"]')).toBe('createOrder');
        expect(await second.page.inputValue('[data-testid="filter-account"]')).toBe(other.walletAddress);
      } finally {
        await second.close();
      }

      // Open my order's exchange.
      await page.selectOption('[data-testid="filter-account"]', '');
      await page.fill('[data-testid="filter-text"]', 'shop-4242');
      await expect.poll(() => rows.count()).toBe(1);
      await rows.first().click();
      const detail = page.locator('[data-testid="journal-detail"]');
      await detail.waitFor({ state: 'visible', timeout: WAIT_MS });
      expect(await text(page, '[data-testid="detail-request"]')).toMatch(
        /^POST \/v1\/tron\/order\?.*outOrderNo=shop-4242/,
      );
      expect(await text(page, '[data-testid="detail-status"]')).toBe('200');
      expect(await text(page, '[data-testid="detail-operation"]')).toBe('createOrder');
      expect(await text(page, '[data-testid="detail-account"]')).toContain(
        server.sim.engine.accounts()[0]!.walletAddress,
      );
      expect(await text(page, '[data-testid="detail-duration"]')).toMatch(/ms$/);
      const response = await page.locator('[data-testid="detail-response-body"]').innerText();
      expect(response).toContain('\n  "code": 0,'); // pretty-printed
      expect(JSON.parse(response).data.id).toBe(mine.id);
      // The account's own key, asked of the control plane for it alone, never kept in the journal.
      await page
        .locator('[data-testid="curl-command"]', { hasText: "'API-KEY: demo-key'" })
        .waitFor({ timeout: WAIT_MS });
      const curl = await text(page, '[data-testid="curl-command"]');
      expect(curl).toMatch(
        /^curl -X POST 'http:\/\/127\.0\.0\.1:\d+\/v1\/tron\/order\?[^']*outOrderNo=shop-4242[^']*' -H 'API-KEY: demo-key'$/,
      );
      expect(await text(page, '[data-testid="curl-note"]')).toBe('');
      await page.getByRole('button', { name: 'Copy as curl' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(curl);
      for (const path of ['/_sim/journal', '/_sim/dashboard'])
        expect(await (await fetch(`${server.url}${path}`)).text(), path).not.toContain('demo-key');
      await page.evaluate(() => window.scrollTo(0, 0));
      for (const target of saveScreenshot('dashboard-journal.png'))
        await page.screenshot({ path: target, fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 90_000);

  it("copies each account's own key, and where the simulator holds none a placeholder and what to put there", async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual' });
    const other = await server.call('POST', '/_sim/accounts', { json: { balance: { trx: '50' } } });
    await createOrder(server, { outOrderNo: 'other-1', apiKey: other.apiKey, pledgeAddress: OTHER_ADDRESS });
    await fetch(`${server.url}/v1/tron/price?rentalCount=65000&period=1h`, {
      headers: { 'API-KEY': 'wrong-key-000' },
    });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      const rows = page.locator('[data-testid="journal-row"]');
      await page.fill('[data-testid="filter-text"]', 'other-1');
      await expect.poll(() => rows.count()).toBe(1);
      await rows.first().click();
      const command = page.locator('[data-testid="curl-command"]');
      await command.filter({ hasText: `'API-KEY: ${other.apiKey}'` }).waitFor({ timeout: WAIT_MS });
      // As copied: the same outOrderNo answers the order it made.
      const { stdout } = await promisify(execFile)('sh', ['-c', `${await command.textContent()} -s`]);
      expect(JSON.parse(stdout)).toMatchObject({ code: 0, data: { outOrderNo: 'other-1' } });
      for (const path of ['/_sim/journal', '/_sim/dashboard'])
        expect(await (await fetch(`${server.url}${path}`)).text(), path).not.toContain(other.apiKey);

      await page.fill('[data-testid="filter-text"]', '');
      await page.selectOption('[data-testid="filter-status"]', '4');
      await expect.poll(() => rows.count()).toBe(1);
      await rows.first().click();
      await command.filter({ hasText: "'API-KEY: <API_KEY>'" }).waitFor({ timeout: WAIT_MS });
      expect(await text(page, '[data-testid="curl-note"]')).toBe(
        'Replace <API_KEY> with the key of an account: this request carried none the simulator knows.',
      );
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);

  it('copies a curl command that the shell runs as the same request, quotes and all', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual' });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      const value = `it's "quoted" $(touch /tmp/never) \\ done`;
      await page.fill('[data-testid="rule-match-value"]', value);
      await button(page, 'Add rule').click();
      await resultSays(page, 'rule-result', /^Added rule-1/);
      await page.fill('[data-testid="filter-operation"]', 'addRule');
      await page.locator('[data-testid="journal-row"]').first().click();
      const curl = await text(page, '[data-testid="curl-command"]');
      expect(curl).toContain("--data-raw '");
      // Async: the server answering it runs in this process.
      await promisify(execFile)('sh', ['-c', `${curl} -s -o /dev/null`]);
      const rules = (await server.call('GET', '/_sim/rules')).rules;
      expect(rules.map((r: { match: unknown }) => r.match)).toEqual([
        { outOrderNo: value },
        { outOrderNo: value },
      ]);
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);

  it('copies a form order as a curl command that the shell runs as the same order, content type and all', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual' });
    const form =
      'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h&outOrderNo=form-1';
    const sent = await fetch(`${server.url}/v1/tron/order`, {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(sent.status).toBe(200);
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      await page.fill('[data-testid="filter-operation"]', 'createOrder');
      await page.locator('[data-testid="journal-row"]').first().click();
      await page
        .locator('[data-testid="curl-command"]', { hasText: "'API-KEY: demo-key'" })
        .waitFor({ timeout: WAIT_MS });
      const curl = await text(page, '[data-testid="curl-command"]');
      expect(curl).toContain("-H 'content-type: application/x-www-form-urlencoded'");
      expect(curl).not.toContain('application/json');
      // As copied, but for a new outOrderNo.
      const command = curl.replace('form-1', 'form-2');
      const { stdout } = await promisify(execFile)('sh', ['-c', `${command} -s`]);
      const answer = JSON.parse(stdout) as { code: number; data: { id: string } };
      expect(answer.code).toBe(0);
      expect(server.sim.engine.storedOrders).toBe(2);
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);

  it('opens an order with its timeline and advances a manual clock exactly to its next step', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual', timing: 'realistic' });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      const order = await createOrder(server, { outOrderNo: 'shop-step' });
      await waitForStatus(page, order.id, 'PENDING');
      await page.locator(row(order.id)).click();
      await page.locator('[data-testid="order-detail"]').waitFor({ state: 'visible', timeout: WAIT_MS });
      expect(await text(page, '[data-testid="order-detail-id"]')).toBe(order.id);
      let view = (await server.call('GET', `/_sim/orders/${order.id}`, { apiKey: 'demo-key' })) as {
        status: string;
        next: { at: number; status: string };
        timeline: unknown[];
      };
      expect(await text(page, '[data-testid="order-detail-next"]')).toContain(
        `${view.next.status} at ${new Date(view.next.at).toISOString()}`,
      );
      expect(await page.locator('[data-testid="order-detail-step"]').count()).toBe(view.timeline.length);
      const firstNext = view.next.at;
      await button(page, 'Advance to the next step').click();
      await resultSays(page, 'order-detail-result', /Clock moved/);
      expect(server.sim.clock.now()).toBe(firstNext);
      view = await server.call('GET', `/_sim/orders/${order.id}`, { apiKey: 'demo-key' });
      await expect
        .poll(() => page.locator('[data-testid="order-detail-step"]').count())
        .toBe(view.timeline.length);
      expect(view.timeline.length).toBeGreaterThan(1);
      expect(errors).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);

  it('shows proxy mode, the upstream, and the spec violations an entry carries (stubbed health and journal)', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual' });
    await createOrder(server, { outOrderNo: 'shop-proxy' });
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    try {
      await page.route('**/_sim/health', async (route) => {
        const real = await (await route.fetch()).json();
        await route.fulfill({
          json: { ...real, mode: 'proxy', proxy: { upstream: 'https://upstream.example/api' } },
        });
      });
      await page.route('**/_sim/journal?*', async (route) => {
        const real = await (await route.fetch()).json();
        const entries = real.entries.map((e: { operation?: string }) =>
          e.operation === 'createOrder'
            ? { ...e, violations: [{ path: '/data/amount', message: 'must be number' }] }
            : e,
        );
        await route.fulfill({ json: { entries } });
      });
      await page.fill('[data-testid="advance-ms"]', '1');
      await page.click('[data-testid="advance-button"]'); // any change reloads
      const pill = page.locator('[data-testid="sim-mode"]');
      await pill.waitFor({ state: 'visible', timeout: WAIT_MS });
      expect((await pill.textContent())!.trim()).toBe('proxy \u2192 https://upstream.example/api');
      const marked = page.locator('[data-testid="journal-row"][data-violations="1"]');
      await marked.waitFor({ timeout: WAIT_MS });
      await marked.click();
      expect(await text(page, '[data-testid="detail-violation"]')).toBe('/data/amount must be number');
      expect(errors).toEqual([]);
    } finally {
      await page.unrouteAll({ behavior: 'ignoreErrors' }); // stubs still fetching when the page closes
      await close();
      await server.close();
    }
  }, 60_000);

  it('shows HTML in every user-controlled string as text, and runs none of it', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual' });
    const evil = '<img src=x onerror=window.__xss=1;alert(1)>';
    const order = await createOrder(server, { outOrderNo: evil });
    await fetch(`${server.url}/v1/${encodeURIComponent(evil)}?q=${encodeURIComponent(evil)}`, {
      method: 'POST',
      headers: { 'API-KEY': 'demo-key', 'content-type': 'application/json' },
      body: JSON.stringify({ note: evil }),
    });
    // The fault operation is an enum: the control plane refuses markup there.
    await expect(
      server.call('POST', '/_sim/faults', { json: { operation: evil, response: 'drop' } }),
    ).rejects.toThrow(/HTTP 400/);
    const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    try {
      await page.fill('[data-testid="rule-match-value"]', evil);
      await button(page, 'Add rule').click();
      await resultSays(page, 'rule-result', /^Added rule-1/);
      expect((await server.call('GET', '/_sim/rules')).rules[0].match).toEqual({ outOrderNo: evil });
      await page.locator('[data-testid="rule-match"]', { hasText: evil }).waitFor({ timeout: WAIT_MS });
      expect(await text(page, `${row(order.id)} [data-testid="order-outorderno"]`)).toBe(evil);
      await page.locator(row(order.id)).click();
      expect(await text(page, '[data-testid="order-detail-outorderno"]')).toBe(evil);
      await page.fill('[data-testid="filter-text"]', 'onerror');
      const rows = page.locator('[data-testid="journal-row"]');
      await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
      for (let i = 0; i < (await rows.count()); i++) {
        await rows.nth(i).click();
        await page.locator('[data-testid="journal-detail"]').waitFor({ state: 'visible', timeout: WAIT_MS });
      }
      expect(await page.locator('[data-testid="detail-response-body"]').innerText()).toContain(evil);
      expect(await page.locator('main img').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
      expect(dialogs).toEqual([]);
      expect(errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    } finally {
      await close();
      await server.close();
    }
  }, 60_000);

  it('fits 390 px without scrolling the page sideways, and 1280 px', async () => {
    requireBrowser();
    const server = await startServer({ clock: 'manual' });
    await createOrder(server, { outOrderNo: 'shop-narrow' });
    await createOrder(server, { outOrderNo: 'shop-with-a-rather-long-order-number', rentalCount: 3_000_000 });
    // Completed, so that the orders table shows their txIds.
    server.sim.advance(60_000);
    await server.call('POST', '/_sim/faults', { json: { operation: 'getPrice', latencyMs: 50, times: 3 } });
    for (const [width, name] of [
      [390, 'dashboard-390.png'],
      [1280, 'dashboard-1280.png'],
    ] as const) {
      const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`, { width, height: 900 });
      try {
        if (width === 1280) {
          // The data comes first: accounts, orders and the journal start in the first screen.
          const tops = await page.evaluate(() =>
            ['accounts-panel', 'orders-panel', 'journal-panel'].map(
              (id) => document.querySelector(`[data-testid="${id}"]`)!.getBoundingClientRect().top,
            ),
          );
          for (const top of tops) expect(top).toBeLessThan(900);
          for (const target of saveScreenshot('dashboard-1280-first-screen.png'))
            await page.screenshot({ path: target });
        }
        await page.locator('[data-testid="order-row"]').first().click();
        await page.locator('[data-testid="journal-row"]').first().click();
        await page.locator('[data-testid="journal-detail"]').waitFor({ state: 'visible', timeout: WAIT_MS });
        const widths = await page.evaluate(() => ({
          body: document.body.scrollWidth,
          doc: document.documentElement.scrollWidth,
        }));
        expect(widths.body).toBeLessThanOrEqual(width);
        expect(widths.doc).toBeLessThanOrEqual(width);
        for (const label of ['Add rule', 'Inject fault', 'Reset simulator', 'Clear journal'])
          expect(await button(page, label).isVisible()).toBe(true);
        if (width === 1280) {
          // Every table fits its panel (the orders' txIds included), every placeholder its
          // field, and no two buttons touch.
          expect(await layoutFaults(page)).toEqual({
            overflowingTables: [],
            cutPlaceholders: [],
            flushButtons: [],
          });
        }
        await page.waitForTimeout(1700); // let the row highlight fade
        await page.evaluate(() => window.scrollTo(0, 0)); // the sticky header at the top of the shot
        for (const target of saveScreenshot(name)) await page.screenshot({ path: target, fullPage: true });
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }
    await server.close();
  }, 60_000);
});
