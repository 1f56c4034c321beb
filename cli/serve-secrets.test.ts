/**
 * No key is kept anywhere by `serve --upstream --record`, however it arrives: in the
 * API-KEY header, a query parameter, a form or a JSON body, and echoed back by the
 * upstream raw, percent-encoded, nested, or as a value that breaks the spec; nor one the
 * upstream hands out, repeated before the field that holds it. Every sink is
 * read: the recording and every temporary file, the journal, the dashboard, the live
 * events, the state file, and everything the process printed.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRecording } from '../recording/recording.ts';
import { exitOf, startCli, type Cleanups } from './test-support.ts';
import { ADDRESS } from '../mock/test-support/fixtures.ts';

const KEYS = {
  header: 'hdr-key-AAAA1111',
  query: 'qry-key-BBBB2222',
  form: 'frm-key-CCCC3333',
  json: 'jsn-key-DDDD4444',
  token: 'tok-key-EEEE5555',
  // Sent in a second API-KEY header beside the first: refused, never forwarded.
  second: 'snd-key-GGGG7777',
  // Never sent: the upstream hands it out, and repeats it before the field that holds it.
  issued: 'iss-key-FFFF6666',
};

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** An upstream that echoes every key it is sent, every way it can. */
async function echoingUpstream(): Promise<string> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const key = String(req.headers['api-key'] ?? '');
      const time = String(Math.floor(Date.now() / 1000));
      const echo = {
        raw: key,
        encoded: encodeURIComponent(key).replace(/-/g, '%2D'),
        sent: `${req.url} ${body}`,
      };
      const data = req.url!.startsWith('/v1/tron/price')
        ? // A key where digits belong: a spec violation whose report would quote it.
          { sun: key, trxPrice: '4.23', period: '1h', resourceType: 'ENERGY', rentalCount: 65000, echo }
        : req.url!.startsWith('/v1/account')
          ? { note: `your new key is ${KEYS.issued}`, credentials: { token: KEYS.issued }, echo }
          : { id: 'OR20250312175009BJ1QRQH7', amount: 4.23, currency: 'TRX', echo };
      // Echoed in answer headers too: raw, percent-encoded, and joined with another value.
      res.writeHead(200, {
        'content-type': 'application/json',
        'retry-after': key,
        location: `/v1/account?api_key=${echo.encoded}`,
        'x-echo': `${key}, ${echo.encoded}`,
      });
      res.end(JSON.stringify({ code: 0, msg: `you sent ${key} and ${echo.sent}`, time, data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The first events of the live stream, read while `during` runs. */
function readEvents(url: string, during: () => Promise<void>): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/_sim/events`, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      during().then(
        () => setTimeout(() => (req.destroy(), resolve(text)), 300),
        (error: unknown) => reject(error),
      );
    });
    req.on('error', () => {});
    req.end();
  });
}

/** Every file under `dir`, read whole. */
function filesUnder(dir: string): Array<{ file: string; text: string }> {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

describe('serve --upstream --record keeps no key', () => {
  it('in the recording, its temporary files, the journal, the dashboard, the events, the state or the logs', async () => {
    const upstream = await echoingUpstream();
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'serve-secrets-'));
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
    const recording = path.join(scratch, 'live.json');
    const state = path.join(scratch, 'state.json');
    const { child, url, output } = await startCli(
      [
        'serve',
        '--port',
        '0',
        '--log',
        'json',
        '--upstream',
        upstream,
        '--allow-spend',
        '--record',
        recording,
        '--state',
        state,
        '--save-interval',
        '100',
      ],
      cleanups,
      /"url":"(http:\/\/[^"]+)"/,
      { TMPDIR: scratch },
    );
    const form = { 'content-type': 'application/x-www-form-urlencoded', 'API-KEY': KEYS.header };
    let twice = 0;
    const events = await readEvents(url, async () => {
      await fetch(`${url}/v1/tron/price?rentalCount=65000&period=1h&API-KEY=${KEYS.query}`, {
        headers: { 'API-KEY': KEYS.header },
      });
      await fetch(`${url}/v1/account?api_key=${encodeURIComponent(KEYS.query)}`, {
        headers: { 'API-KEY': KEYS.header },
      });
      await fetch(`${url}/v1/tron/order`, {
        method: 'POST',
        headers: form,
        body: `pledgeAddress=${ADDRESS}&rentalCount=65000&period=1h&api_key=${KEYS.form}`,
      });
      await fetch(`${url}/v1/tron/order`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'API-KEY': KEYS.header },
        body: JSON.stringify({ pledgeAddress: ADDRESS, apiKey: KEYS.json, nested: { token: KEYS.token } }),
      });
      twice = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${url}/v1/account`,
          { headers: { 'API-KEY': [KEYS.header, KEYS.second] } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        req.end();
      });
    });
    const journal = await (await fetch(`${url}/_sim/journal?limit=100`)).text();
    const dashboard = await (await fetch(`${url}/_sim/dashboard`)).text();
    // Mid-run, the recording's temporary files are on disk too.
    const midRun = filesUnder(scratch);
    child.kill('SIGTERM');
    await exitOf(child);
    const sinks = [
      { file: 'journal', text: journal },
      { file: 'dashboard', text: dashboard },
      { file: 'events', text: events },
      { file: 'output', text: output() },
      ...midRun,
      ...filesUnder(scratch),
    ];
    expect(journal).toContain('/v1/tron/price');
    expect(twice).toBe(400);
    expect(readFileSync(recording, 'utf8')).toMatch(/"retry-after":"key-\d+"/);
    expect(output()).toContain('spec violation');
    expect(sinks.some((s) => s.file === recording)).toBe(true);
    // The order with a JSON body is refused before the upstream (an order is forwarded as a form only).
    expect(loadRecording(recording).interactions.length).toBeGreaterThanOrEqual(3);
    for (const { file, text } of sinks) {
      for (const [where, key] of Object.entries(KEYS)) {
        for (const spelling of [key, encodeURIComponent(key).replace(/-/g, '%2D')])
          expect(text.includes(spelling), `${where} key in ${file}`).toBe(false);
      }
    }
  }, 30_000);
});
