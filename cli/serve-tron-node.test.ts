/**
 * `serve --upstream URL --tron-node NODE --record FILE`, then `serve --replay FILE`: the TRON
 * node's reads are forwarded to a node (a fake one here, on an ephemeral port), recorded with
 * the API's traffic and answered from the recording; a broadcast never reaches the node, and
 * the node's key is in no recording, journal or log.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { parseServeArgs, serve } from './serve.ts';
import { ADDRESS } from '../mock/test-support/fixtures.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'serve-tron-node-'));
/** A TRON-PRO-API-KEY that the fake node echoes back, as a careless node might. */
const NODE_KEY = 'trongrid-key-0123456789abcdef';
/** Never reached: these tests send the API nothing. */
const UPSTREAM = 'http://127.0.0.1:9';
const RESOURCES = { EnergyLimit: 65000, freeNetLimit: 600 };

/** What the fake node was sent, in order. */
const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
let node: Server;
let nodeUrl = '';

beforeAll(async () => {
  node = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      // Neither is passed back: a cookie of the node's, a header of its connection.
      res.setHeader('set-cookie', 'node=1');
      res.setHeader('keep-alive', 'timeout=99');
      res.end(
        JSON.stringify({ ...RESOURCES, note: `served for ${String(req.headers['tron-pro-api-key'])}` }),
      );
    });
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => node.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => void (seen.length = 0));

const read = (base: string, key = true): Promise<Response> =>
  fetch(`${base}/wallet/getaccountresource`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'API-KEY': 'rental-key-never-for-the-node',
      ...(key ? { 'TRON-PRO-API-KEY': NODE_KEY } : {}),
    },
    body: JSON.stringify({ address: ADDRESS, visible: true }),
  });

describe('serve --tron-node in front of a TRON node', () => {
  const file = path.join(dir, 'live.jsonl');

  it('forwards getaccountresource to the node with its key but not the rental key, and records it keyless', async () => {
    const lines: string[] = [];
    const proxy = await serve(
      { port: 0, host: '127.0.0.1', upstream: UPSTREAM, tronNode: nodeUrl, record: file },
      (line) => lines.push(line),
    );
    let journal: string | undefined;
    try {
      const res = await read(proxy.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('keep-alive')).not.toBe('timeout=99');
      expect(await res.json()).toMatchObject(RESOURCES);
      journal = await (await fetch(`${proxy.url}/_sim/journal`)).text();
    } finally {
      await proxy.close();
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/wallet/getaccountresource' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ address: ADDRESS, visible: true });
    expect(seen[0]!.headers['tron-pro-api-key']).toBe(NODE_KEY);
    expect(seen[0]!.headers['api-key']).toBeUndefined();
    expect(journal).toContain('wallet_getaccountresource_post');
    expect(journal).toContain('served for key-');
    const recorded = readFileSync(file, 'utf8');
    expect(recorded).toContain('"path":"/wallet/getaccountresource"');
    expect(recorded).toContain('"EnergyLimit":65000');
    for (const kept of [journal, recorded, lines.join('\n')]) expect(kept).not.toContain(NODE_KEY);
  });

  it('answers the recorded read from the recording alone, and a read it never saw with the miss answer', async () => {
    const replay = await serve({ port: 0, host: '127.0.0.1', replay: file, quiet: true }, () => {});
    try {
      const res = await read(replay.url, false);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject(RESOURCES);
      const miss = await fetch(`${replay.url}/wallet/getaccountresource`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address: 'TJR2XHNAFojq68V2Y6H1ESQy75LaUnB7ji', visible: true }),
      });
      expect(miss.status).toBe(501);
      expect(await miss.json()).toMatchObject({ code: 59900 });
    } finally {
      await replay.close();
    }
    expect(seen).toEqual([]);
  });

  it('refuses a broadcast with an error naming the rule, and never sends it to the node', async () => {
    const proxy = await serve(
      { port: 0, host: '127.0.0.1', upstream: UPSTREAM, tronNode: nodeUrl, quiet: true },
      () => {},
    );
    try {
      const res = await fetch(`${proxy.url}/wallet/broadcasttransaction`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'TRON-PRO-API-KEY': NODE_KEY },
        body: '{"raw_data_hex":"0a02"}',
      });
      expect(res.status).toBe(404);
      const body = (await res.json()) as { code: number; msg: string };
      expect(body.code).toBe(40400);
      expect(body.msg).toContain("only the TRON node's reads of spec/tron-node.yaml are passed on");
      expect(body.msg).toContain('POST /wallet/broadcasttransaction was not');
      const wrongMethod = await fetch(`${proxy.url}/wallet/getaccountresource`, { method: 'PUT' });
      expect(wrongMethod.status).toBe(405);
    } finally {
      await proxy.close();
    }
    expect(seen).toEqual([]);
  });

  it('leaves the node paths to the usual 404 without --tron-node', async () => {
    const proxy = await serve({ port: 0, host: '127.0.0.1', upstream: UPSTREAM, quiet: true }, () => {});
    try {
      const res = await read(proxy.url);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 40400 });
    } finally {
      await proxy.close();
    }
    expect(seen).toEqual([]);
  });
});

describe('serve --tron-node refusals', () => {
  const refusal = (argv: string[], env: NodeJS.ProcessEnv = {}): string => {
    try {
      parseServeArgs(argv, env);
    } catch (error) {
      if (error instanceof CliError) return error.message;
      throw error;
    }
    return 'accepted';
  };

  it('refuses the flag without --upstream, naming it and the rule', () => {
    expect(refusal(['--tron-node', 'https://api.trongrid.io'])).toMatch(
      /^--tron-node applies only in front of a service: add --upstream URL/,
    );
    expect(refusal([], { ENERGY_SIM_TRON_NODE: 'https://api.trongrid.io' })).toMatch(/^ENERGY_SIM_TRON_NODE/);
  });

  it('refuses a URL that is not http(s)', () => {
    expect(refusal(['--upstream', UPSTREAM, '--tron-node', 'ftp://node.example'])).toMatch(
      /^--tron-node must be the http\(s\) base URL of a TRON node's HTTP API.*got 'ftp:\/\/node\.example'/,
    );
  });

  it('takes the flag with --upstream, and with --replay, whose recording answers the reads', () => {
    expect(
      parseServeArgs(['--upstream', UPSTREAM, '--tron-node', 'https://api.trongrid.io'], {}),
    ).toMatchObject({
      tronNode: 'https://api.trongrid.io',
    });
    expect(refusal(['--replay', 'x.jsonl', '--tron-node', 'https://api.trongrid.io'])).toBe('accepted');
  });
});
