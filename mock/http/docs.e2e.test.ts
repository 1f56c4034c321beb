/**
 * The API reference end to end: Swagger UI served by the simulator, in Debian's
 * Chromium, with "Try it out" calling this simulator with the pre-authorised demo key.
 * Screenshots go to test-artifacts/; with UPDATE_SCREENSHOTS=1 also to docs/screenshots/.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING as missing, launchChromium } from '../test-support/dashboard-e2e-test-support.ts';
import { startSimulator, type TestSimulator } from '../testing/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let browser: Browser | undefined;
let sim: TestSimulator;

beforeAll(async () => {
  sim = await startSimulator({ clock: 'real', timing: 'fast' });
  if (!missing) {
    browser = await launchChromium();
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sim?.stop();
});

function screenshotPaths(name: string): string[] {
  mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
  const paths = [path.join(ROOT, 'test-artifacts', name)];
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(path.join(ROOT, 'docs/screenshots'), { recursive: true });
    paths.push(path.join(ROOT, 'docs/screenshots', name));
  }
  return paths;
}

describe('/docs', () => {
  it('lets "Try it out" price an order against this simulator with the demo key', async () => {
    if (missing) throw new Error(missing);
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${sim.url}/docs`);
    const operation = page.locator('#operations-pricing-getPrice');
    await operation.locator('.opblock-summary').click();
    await operation.locator('tr[data-param-name="rentalCount"] input').fill('65000');
    await operation.locator('tr[data-param-name="period"] select').selectOption('1h');
    await operation.locator('button.execute').click();
    const response = operation.locator('.live-responses-table');
    await expect
      .poll(async () => response.textContent(), { timeout: 60_000 })
      .toContain('"trxPrice": "4.23"');
    expect(
      await operation.locator('.responses-wrapper').textContent(),
      'the request went to this simulator',
    ).toContain(sim.url);
    expect(errors).toEqual([]);
    const [first, ...copies] = screenshotPaths('docs.png');
    await page.screenshot({ path: first!, fullPage: false });
    for (const copy of copies) copyFileSync(first!, copy);
    // The call went through the simulator, authenticated as the demo account.
    const journal = await sim.journal({ operation: 'getPrice' });
    expect(journal.at(-1)).toMatchObject({ status: 200, account: expect.stringMatching(/^T/) });
    await page.close();
  }, 60_000);

  it('serves the control plane reference at /docs/control', async () => {
    if (missing) throw new Error(missing);
    const page = await browser!.newPage();
    await page.goto(`${sim.url}/docs/control`);
    await expect
      .poll(async () => page.locator('#operations-faults-injectFault').count(), { timeout: 60_000 })
      .toBe(1);
    await page.close();
  }, 60_000);
});
