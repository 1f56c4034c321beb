/**
 * What a web page can do to a simulator, in Debian's Chromium: a page on another local
 * origin fires the cross-site requests a browser sends without a preflight, a page
 * under a DNS-rebound name tries to read, and the simulator's own Swagger UI writes to
 * the control plane, which must keep working.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatorServer } from '../node-server.ts';
import { createSimulator, type Simulator } from '../simulator.ts';
import { CHROMIUM_MISSING as missing, launchChromium } from '../test-support/dashboard-e2e-test-support.ts';

/** Resolved by Chromium to 127.0.0.1, as a rebinding attacker's DNS would. */
const REBOUND = 'rebind.test';

let browser: Browser | undefined;
let sim: Simulator;
let simServer: Server;
let simUrl: string;
let evilServer: Server;
let evilUrl: string;
const seen: IncomingMessage[] = [];

async function listenOn(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A hostile page: the requests a browser sends cross-site with no preflight, and one that needs it. */
const evilPage = (target: string): string => `<!doctype html><html><body>
<form id="rules" method="POST" action="${target}/_sim/rules" enctype="text/plain" target="sink">
  <input name='{"outcome":"FAILED","x":"' value='"}'>
</form>
<iframe name="sink"></iframe>
<script>
  fetch('${target}/_sim/accounts', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"balance":{"trx":"5"}}' });
  fetch('${target}/_sim/reset', { method: 'POST', mode: 'no-cors' });
  // A JSON write needs a preflight, which is never granted, so the PUT itself is never sent.
  fetch('${target}/_sim/supply', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"energy":1}' });
  document.getElementById('rules').submit();
</script></body></html>`;

beforeAll(async () => {
  sim = createSimulator({ clock: 'manual' });
  simServer = createSimulatorServer(sim);
  simServer.on('request', (req: IncomingMessage) => seen.push(req));
  simUrl = await listenOn(simServer);
  evilServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(evilPage(simUrl));
  });
  evilUrl = await listenOn(evilServer);
  if (!missing) {
    browser = await launchChromium([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`]);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const server of [simServer, evilServer]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
});

const stateOf = (s: Simulator): string =>
  JSON.stringify({ version: s.engine.version, snapshot: s.engine.snapshot(), faults: s.faults.list() });

describe('a web page and the simulator', () => {
  it('cannot change anything from another origin: its fetches and form posts are refused, its preflight not granted', async () => {
    if (missing) throw new Error(missing);
    await sim.app.request('/_sim/accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"balance":{"trx":"9"}}',
    });
    const before = stateOf(sim);
    const page = await browser!.newPage();
    await page.goto(evilUrl);
    const fromEvil = (): string[] =>
      seen.filter((req) => req.headers.origin === evilUrl).map((req) => `${req.method} ${req.url}`);
    await expect
      .poll(() => fromEvil().sort(), { timeout: 60_000 })
      .toEqual(['OPTIONS /_sim/supply', 'POST /_sim/accounts', 'POST /_sim/reset', 'POST /_sim/rules']);
    expect(stateOf(sim)).toBe(before);
    expect(sim.engine.accounts()).toHaveLength(2);
    await page.close();
  }, 60_000);

  it('cannot read it under a DNS-rebound name', async () => {
    if (missing) throw new Error(missing);
    const page = await browser!.newPage();
    const port = new URL(simUrl).port;
    const response = await page.goto(`http://${REBOUND}:${port}/_sim/accounts`);
    expect(response!.status()).toBe(403);
    expect(JSON.parse(await response!.text())).toMatchObject({
      code: 10005,
      msg: expect.stringContaining(`--allowed-hosts ${REBOUND}`),
    });
    expect(seen.some((req) => req.headers.host === `${REBOUND}:${port}`)).toBe(true);
    await page.close();
  }, 60_000);

  it("writes to the control plane from the simulator's own Swagger UI", async () => {
    if (missing) throw new Error(missing);
    const accounts = sim.engine.accounts().length;
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${simUrl}/docs/control`);
    const operation = page.locator('#operations-accounts-createAccount');
    await operation.locator('.opblock-summary').click();
    await operation.locator('textarea.body-param__text').fill('{"balance":{"trx":"3"}}');
    await operation.locator('button.execute').click();
    await expect
      .poll(async () => operation.locator('.live-responses-table').textContent(), { timeout: 60_000 })
      .toContain('"apiKey"');
    expect(sim.engine.accounts()).toHaveLength(accounts + 1);
    const write = seen.findLast((req) => req.method === 'POST' && req.url === '/_sim/accounts');
    expect(write?.headers.origin, 'a same-origin write carries its Origin, which passes').toBe(simUrl);
    await page.close();
  }, 60_000);
});
