/** What the browser tests share: Debian's Chromium via playwright-core, a simulator, pages. */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { createSimulator, type Simulator, type SimulatorOptions } from '../simulator.ts';
import { ADDRESS } from './fixtures.ts';
import { listen } from './socket-test-support.ts';

const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run, or undefined when they can. */
export const CHROMIUM_MISSING = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is missing: run \`npm run ensure:chromium\` (\`npm test\` runs it first).`;

/** Flags that keep a headless Chromium quiet: no GPU, no QUIC, no update or sync traffic. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium with CHROMIUM_ARGS and `extraArgs`: `await launchChromium([rule])`. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WAIT_MS = 60_000;

let browser: Browser | undefined;

/** Registers the browser's launch and close in the calling test file. */
export function useBrowser(): void {
  beforeAll(async () => {
    if (!CHROMIUM_MISSING) browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
}

/** The launched browser; missing Chromium fails the test with the fix rather than skipping it. */
export function requireBrowser(): Browser {
  if (CHROMIUM_MISSING) throw new Error(CHROMIUM_MISSING);
  return browser!;
}

export interface Running {
  sim: Simulator;
  url: string;
  /** Calls the simulator over HTTP. */
  call(
    method: string,
    path: string,
    options?: { apiKey?: string; json?: unknown; token?: string },
  ): Promise<any>;
  close(): Promise<void>;
}

/** A simulator on a loopback socket, as the CLI serves it (its Host and cross-site checks on). */
export async function startServer(options: SimulatorOptions): Promise<Running> {
  const sim = createSimulator(options);
  const { port, close } = await listen(sim);
  const url = `http://127.0.0.1:${port}`;
  return {
    sim,
    url,
    close,
    async call(method, path, { apiKey, json, token } = {}) {
      const headers: Record<string, string> = {};
      if (apiKey) headers['API-KEY'] = apiKey;
      if (token) headers.Authorization = `Bearer ${token}`;
      if (json !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${url}${path}`, {
        method,
        headers,
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(body)}`);
      return body;
    },
  };
}

/** A fresh page that fails the test on any script error or console error. */
export async function openDashboard(
  url: string,
  viewport = { width: 1440, height: 900 },
): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const context = await requireBrowser().newContext({
    viewport,
    deviceScaleFactor: 1,
    colorScheme: 'light',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  await page.locator('body[data-loaded="true"]').waitFor({ timeout: WAIT_MS });
  await page.locator('[data-testid="connection"]', { hasText: 'live' }).waitFor({ timeout: WAIT_MS });
  return { page, errors, close: () => context.close() };
}

export const row = (orderId: string): string => `[data-testid="order-row"][data-order-id="${orderId}"]`;
export const accountRow = (wallet: string): string => `[data-testid="account-row"][data-wallet="${wallet}"]`;

export async function waitForStatus(page: Page, orderId: string, status: string): Promise<void> {
  await page
    .locator(`${row(orderId)} [data-testid="order-status"]`, { hasText: status })
    .waitFor({ timeout: WAIT_MS });
}

export async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).innerText()).trim();
}

/** Hundredths as the simulator prints decimals: no trailing zeros. */
export function decimal(hundredths: number): string {
  const whole = Math.floor(hundredths / 100);
  const fraction = String(hundredths % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

export async function createOrder(
  server: Running,
  input: {
    apiKey?: string;
    pledgeAddress?: string;
    outOrderNo?: string;
    rentalCount?: number;
    period?: string;
  },
): Promise<{ id: string; amount: number }> {
  const query = new URLSearchParams({
    pledgeAddress: input.pledgeAddress ?? ADDRESS,
    rentalCount: String(input.rentalCount ?? 65000),
    period: input.period ?? '1h',
  });
  if (input.outOrderNo) query.set('outOrderNo', input.outOrderNo);
  const created = await server.call('POST', `/v1/tron/order?${query}`, {
    apiKey: input.apiKey ?? 'demo-key',
  });
  expect(created.code).toBe(0);
  return created.data;
}

export function saveScreenshot(name: string): string[] {
  const targets = [path.join(ROOT, 'test-artifacts', name)];
  if (process.env.UPDATE_SCREENSHOTS === '1') targets.push(path.join(ROOT, 'docs', 'screenshots', name));
  for (const target of targets) mkdirSync(path.dirname(target), { recursive: true });
  return targets;
}
