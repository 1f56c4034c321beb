/**
 * `npm run bench`: the simulator's benchmark (not part of `npm test`).
 *
 * Starts each server as its own process on 127.0.0.1 and loads it with autocannon at 32
 * connections: a bare node:http server answering a fixed price JSON (the ceiling of this
 * machine) and the simulator on GET /v1/tron/price, GET /v1/tron/history (by orderId and
 * by outOrderNo), GET /v1/account and POST /v1/tron/order. Each simulator endpoint is
 * paired with a run of the ceiling right before or after it (alternating), each pairing
 * is repeated, and medians are reported. Then start-up time, history lookups as the store
 * grows, memory per stored order and the contract suite's wall time.
 *
 * Prints a table and writes bench/results.json. See bench/README.md.
 *
 *   npm run bench                      full run (about 7–9 minutes)
 *   npm run bench -- --quick           short durations, one repeat, 10^5 orders (about 2 minutes)
 *   npm run bench -- --repeat 5        pairings repeated 5 times (default 3)
 *   npm run bench -- --only price,startup
 *                                      only these parts: price, history, account, order,
 *                                      rejected, compiled, quiet, hono, startup, growth,
 *                                      contract, save, proxy
 *   npm run bench -- --profile         CPU profiles under load instead (bench/profile.ts)
 *   npm run bench -- --root DIR        benchmark another checkout's simulator
 *   npm run bench -- --out FILE        write the results elsewhere
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildSimulator } from './build.ts';
import { checkoutState } from './checkout.ts';
import { timeContractInProcess, timeContractOverHttp, type ContractTiming } from './contract-timing.ts';
import { waitForQuiet, watchCpu } from './cpu.ts';
import { runLoad, type LoadOptions, type LoadResult, type LoadTarget } from './load.ts';
import { runProfiles } from './profile.ts';
import {
  accountTarget,
  createHistoryOrder,
  historyTarget,
  orderTarget,
  priceTarget,
  unknownKeyTarget,
  type HistoryOrder,
} from './requests.ts';
import { BENCH_DIR, DEFAULT_SERVE_ARGS, REPO_ROOT, startServer, type RunningServer } from './servers.ts';
import { measureStartups, type StartupResult } from './startup.ts';
import { measureProxyOverhead, type ProxyOverhead } from './proxy-overhead.ts';
import { measureSaveLatency, type SaveLoadResult } from './state-save.ts';
import { measureStoreGrowth, type GrowthResult } from './store-growth.ts';
import { median, round, roundedJson } from './stats.ts';

// ---------------------------------------------------------------------------------------
// Targets of the issue

export const TARGETS = {
  readRatio: 0.7,
  orderRatio: 0.4,
  readP99Ms: 2,
  startupVsBare: 2.5,
  growthSlowdown: 1.3,
  bytesPerOrder: 400,
  contractInProcessS: 5,
  contractHttpS: 15,
  saveOrderP99Ms: 100,
  proxyRatio: 0.5,
  proxyP50AddedMs: 1,
} as const;

const PARTS = [
  'price',
  'history',
  'account',
  'order',
  'rejected',
  'compiled',
  'quiet',
  'hono',
  'startup',
  'growth',
  'contract',
  'save',
  'proxy',
] as const;
type Part = (typeof PARTS)[number];

// ---------------------------------------------------------------------------------------
// Options

/** A bad flag: its rule and the fix on stderr, exit 2, no stack trace. */
function usageError(message: string): never {
  process.stderr.write(`bench: ${message} See npm run bench -- --help.\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      repeat: { type: 'string' },
      only: { type: 'string' },
      root: { type: 'string' },
      out: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      profile: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
} catch (error) {
  usageError((error as Error).message);
}
const { values } = parsed;

if (values.help) {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  process.stdout.write(
    `${/\/\*\*([\s\S]*?)\*\//
      .exec(source)![1]!
      .replace(/^ \* ?/gm, '')
      .trim()}\n`,
  );
  process.exit(0);
}

const quick = values.quick;
const root = path.resolve(values.root ?? REPO_ROOT);
/** A numeric flag: its value, or the fallback when it is absent; a clear error otherwise. */
function numberFlag(
  name: string,
  text: string | undefined,
  fallback: number,
  rule: { whole?: boolean; min: number },
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (
    text.trim() === '' ||
    !Number.isFinite(value) ||
    value < rule.min ||
    (rule.whole && !Number.isInteger(value))
  ) {
    usageError(
      `--${name} must be ${rule.whole ? 'a whole number' : 'a number'} >= ${rule.min} (got '${text}').`,
    );
  }
  return value;
}
const repeat = numberFlag('repeat', values.repeat, quick ? 1 : 3, { whole: true, min: 1 });
const load: LoadOptions = {
  connections: numberFlag('connections', values.connections, 32, { whole: true, min: 1 }),
  durationS: numberFlag('duration', values.duration, quick ? 2 : 4, { min: 0.1 }),
  warmupS: numberFlag('warmup', values.warmup, quick ? 0.5 : 1, { min: 0 }),
};
const only = values.only
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);

if (values.profile) {
  // With --profile, --only names profile cases (price-compiled, order-tsx, …).
  await runProfiles({ root, quick, ...(only ? { only } : {}) });
  process.exit(0);
}

for (const name of only ?? []) {
  if (!PARTS.includes(name as Part))
    usageError(`--only: unknown part '${name}'; the parts are ${PARTS.join(', ')}.`);
}
const wants = (part: Part): boolean => !only || only.includes(part);
const outFile = path.resolve(values.out ?? path.join(BENCH_DIR, 'results.json'));

// ---------------------------------------------------------------------------------------
// Machine and checkout

const machine = {
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  totalMemMb: Math.round(os.totalmem() / 2 ** 20),
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  node: process.version,
  loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
};
/** A digest of the simulator's sources (mock/, src/, bin/, spec/ without tests), to tell whether they changed during the run. */
function sourceDigest(): string {
  const hash = createHash('sha1');
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.isFile() && !entry.name.includes('.test.')) hash.update(file).update(readFileSync(file));
    }
  };
  for (const dir of ['mock', 'src', 'bin', 'spec']) walk(path.join(root, dir));
  return hash.digest('hex').slice(0, 12);
}

const checkout = {
  root,
  ...checkoutState(root),
  sourceDigestAtStart: sourceDigest(),
  sourceDigestAtEnd: '',
};
const startedAt = new Date();
const log = (line: string): void => void process.stderr.write(`${line}\n`);
log(
  `bench: ${quick ? 'quick' : 'full'} run, ${repeat} repeat(s), ${load.connections} connections, ${load.warmupS} s warm-up + ${load.durationS} s per run; ` +
    `${machine.cpus} CPUs, Node ${machine.node}; checkout ${checkout.head}${checkout.dirty.length ? ` + ${checkout.dirty.length} uncommitted change(s)` : ''}`,
);

// ---------------------------------------------------------------------------------------
// Load pairings

interface Endpoint {
  name: string;
  part: Part;
  server: 'sim' | 'sim-built' | 'sim-quiet' | 'hono';
  /** 'reference' rows have no target. */
  kind: 'read' | 'order' | 'reference';
  target: (sim: RunningServer) => LoadTarget;
}

interface RunRecord extends LoadResult {
  server: string;
  endpoint: string;
  repeat: number;
  foreignCores: number;
  serverCores: number;
  retried: boolean;
}

interface LoadRow {
  name: string;
  server: string;
  runtime: string;
  rps: number;
  ratio: number;
  p50Ms: number;
  p99Ms: number;
  target: string;
  met: boolean;
  why: string;
  valid: boolean;
  maxForeignCores: number;
  /** Median CPU time the server process used per request, µs: steadier than req/s on a busy machine. */
  cpuUsPerReq: number;
  runs: number;
}

const historyRefs = new Map<string, HistoryOrder>();

const ENDPOINTS: Endpoint[] = [
  { name: 'GET /v1/tron/price', part: 'price', server: 'sim', kind: 'read', target: priceTarget },
  {
    name: 'GET /v1/tron/history?orderId',
    part: 'history',
    server: 'sim',
    kind: 'read',
    target: (sim) => historyTarget(sim, 'orderId', historyRefs.get(sim.url)!.orderId),
  },
  {
    name: 'GET /v1/tron/history?outOrderNo',
    part: 'history',
    server: 'sim',
    kind: 'read',
    target: (sim) => historyTarget(sim, 'outOrderNo', historyRefs.get(sim.url)!.outOrderNo),
  },
  { name: 'GET /v1/account', part: 'account', server: 'sim', kind: 'read', target: accountTarget },
  { name: 'POST /v1/tron/order', part: 'order', server: 'sim', kind: 'order', target: orderTarget },
  // What a rejection costs: a client retrying with a wrong key, a fuzzer, a load test of the
  // rate limit are served at this rate. No target: the row is there to be compared.
  {
    name: 'GET /v1/tron/price [unknown key: 401]',
    part: 'rejected',
    server: 'sim',
    kind: 'reference',
    target: unknownKeyTarget,
  },
  {
    name: 'GET /v1/tron/price [compiled JS]',
    part: 'compiled',
    server: 'sim-built',
    kind: 'read',
    target: priceTarget,
  },
  {
    name: 'POST /v1/tron/order [compiled JS]',
    part: 'compiled',
    server: 'sim-built',
    kind: 'order',
    target: orderTarget,
  },
  // The simulator logs every request to stdout by default; this row shows what that costs.
  {
    name: 'GET /v1/tron/price [--quiet]',
    part: 'quiet',
    server: 'sim-quiet',
    kind: 'read',
    target: priceTarget,
  },
  // The framework's floor: the smallest Hono app answering the same JSON (bench/hono-server.mjs).
  {
    name: 'minimal Hono app, same JSON (reference)',
    part: 'hono',
    server: 'hono',
    kind: 'reference',
    target: priceTarget,
  },
];

/** The same request sent to the bare server: same method, path, headers and body. */
function mirror(target: LoadTarget, bare: RunningServer): LoadTarget {
  const url = new URL(target.url);
  // The bare server answers every request with its success: a rejection's row is compared with it.
  const { expect: _rejection, ...request } = target;
  return { ...request, url: `${bare.url}${url.pathname}${url.search}` };
}

/** Creates the order the history endpoints look up. */
async function prepareHistory(sim: RunningServer): Promise<void> {
  historyRefs.set(sim.url, await createHistoryOrder(sim));
}

/** Runs one load and watches the CPU of the server, this process and everything else. */
async function measured(
  server: RunningServer,
  target: LoadTarget,
): Promise<{ result: LoadResult; foreignCores: number; serverCores: number }> {
  const stopWatch = watchCpu([server.pid, process.pid]);
  const result = await runLoad(target, load);
  const usage = stopWatch();
  return { result, foreignCores: usage.foreignCores, serverCores: usage.cores[server.pid] ?? NaN };
}

/** Over this many cores used by other processes during a run, the pairing is run again. */
const FOREIGN_LIMIT = 0.3;
const MAX_RETRIES = 2;
/** Before each pairing, wait (up to this budget over the whole run) for other processes to go quiet. */
let quietBudgetMs = quick ? 20_000 : 90_000;
let retryBudget = quick ? 3 : 8;
const waits: { before: string; waitedMs: number; foreignCores: number }[] = [];

async function quiet(before: string, servers: Record<string, RunningServer>): Promise<void> {
  if (quietBudgetMs <= 0) return;
  const waited = await waitForQuiet(
    [process.pid, ...Object.values(servers).map((s) => s.pid)],
    FOREIGN_LIMIT / 2,
    Math.min(quietBudgetMs, 20_000),
  );
  quietBudgetMs -= waited.waitedMs;
  if (waited.waitedMs > 1500) {
    waits.push({
      before,
      waitedMs: Math.round(waited.waitedMs),
      foreignCores: round(waited.foreignCores, 2),
    });
    log(
      `  (waited ${round(waited.waitedMs / 1000, 1)} s for other processes to go quiet; now ${round(waited.foreignCores, 2)} cores)`,
    );
  }
}

async function runPairings(
  endpoints: Endpoint[],
  servers: Record<string, RunningServer>,
): Promise<{ rows: LoadRow[]; ceiling: LoadRow; runs: RunRecord[] }> {
  const runs: RunRecord[] = [];
  const bare = servers.bare!;
  for (let r = 0; r < repeat; r++) {
    for (const endpoint of endpoints) {
      const sim = servers[endpoint.server]!;
      // Made again before each history pairing: by then the order loads may have filled the
      // store (100 000 orders by default) and evicted the one made before.
      if (endpoint.part === 'history') await prepareHistory(sim);
      const simTarget = endpoint.target(sim);
      const bareTarget = mirror(simTarget, bare);
      for (let attempt = 0; ; attempt++) {
        await quiet(endpoint.name, servers);
        // Alternate which goes first, so drift over the run does not favour either.
        const order = (r + attempt) % 2 === 0 ? (['bare', 'sim'] as const) : (['sim', 'bare'] as const);
        const pair: RunRecord[] = [];
        for (const who of order) {
          const server = who === 'bare' ? bare : sim;
          const { result, foreignCores, serverCores } = await measured(
            server,
            who === 'bare' ? bareTarget : simTarget,
          );
          pair.push({
            ...result,
            server: who === 'bare' ? 'bare' : endpoint.server,
            endpoint: endpoint.name,
            repeat: r,
            foreignCores,
            serverCores,
            retried: attempt > 0,
          });
        }
        const disturbed = pair.some((p) => p.foreignCores > FOREIGN_LIMIT);
        const again = disturbed && attempt < MAX_RETRIES && retryBudget > 0;
        const simRun = pair.find((p) => p.server !== 'bare')!;
        const bareRun = pair.find((p) => p.server === 'bare')!;
        log(
          `  ${endpoint.name.padEnd(36)} #${r + 1}${attempt ? ` (retry ${attempt})` : ''}: ${Math.round(simRun.rps)} req/s vs bare ${Math.round(bareRun.rps)} ` +
            `(${round(simRun.rps / bareRun.rps, 3)}), p99 ${round(simRun.p99Ms, 2)} ms, other load ${round(Math.max(simRun.foreignCores, bareRun.foreignCores), 2)} cores` +
            `${simRun.valid && bareRun.valid ? '' : ' INVALID: responses that were not 200 with code 0'}${again ? ' -> disturbed, again' : ''}`,
        );
        if (!again) {
          runs.push(...pair);
          break;
        }
        retryBudget--;
      }
    }
  }

  const rows: LoadRow[] = [];
  for (const endpoint of endpoints) {
    const simRuns = runs.filter((x) => x.endpoint === endpoint.name && x.server !== 'bare');
    const ratios = simRuns.map(
      (s) =>
        s.rps /
        runs.find((b) => b.server === 'bare' && b.endpoint === endpoint.name && b.repeat === s.repeat)!.rps,
    );
    const ratio = median(ratios);
    const p99 = median(simRuns.map((x) => x.p99Ms));
    const valid = simRuns.every((x) => x.valid);
    const wantRatio =
      endpoint.kind === 'order' ? TARGETS.orderRatio : endpoint.kind === 'read' ? TARGETS.readRatio : 0;
    const ratioMet = ratio >= wantRatio;
    const p99Met = endpoint.kind !== 'read' || p99 <= TARGETS.readP99Ms;
    rows.push({
      name: endpoint.name,
      server: endpoint.server,
      runtime: servers[endpoint.server]!.runtime,
      rps: median(simRuns.map((x) => x.rps)),
      ratio,
      p50Ms: median(simRuns.map((x) => x.p50Ms)),
      p99Ms: p99,
      target:
        endpoint.kind === 'order'
          ? `>= ${TARGETS.orderRatio}x`
          : endpoint.kind === 'read'
            ? `>= ${TARGETS.readRatio}x, p99 <= ${TARGETS.readP99Ms} ms`
            : '',
      met: valid && ratioMet && p99Met,
      why: !valid ? 'invalid run' : [ratioMet ? '' : 'ratio', p99Met ? '' : 'p99'].filter(Boolean).join(', '),
      valid,
      maxForeignCores: Math.max(...simRuns.map((x) => x.foreignCores)),
      cpuUsPerReq: median(simRuns.map((x) => (x.serverCores / x.rps) * 1e6)),
      runs: simRuns.length,
    });
  }
  const bareRuns = runs.filter((x) => x.server === 'bare');
  const ceiling: LoadRow = {
    name: 'bare node:http (ceiling)',
    server: 'bare',
    runtime: 'bare',
    rps: median(bareRuns.map((x) => x.rps)),
    ratio: 1,
    p50Ms: median(bareRuns.map((x) => x.p50Ms)),
    p99Ms: median(bareRuns.map((x) => x.p99Ms)),
    target: '',
    met: true,
    why: '',
    valid: bareRuns.every((x) => x.valid),
    maxForeignCores: Math.max(...bareRuns.map((x) => x.foreignCores)),
    cpuUsPerReq: median(bareRuns.map((x) => (x.serverCores / x.rps) * 1e6)),
    runs: bareRuns.length,
  };
  return { rows, ceiling, runs };
}

// ---------------------------------------------------------------------------------------
// The run

const results: Record<string, unknown> = {
  date: startedAt.toISOString(),
  machine,
  checkout,
  options: { quick, repeat, ...load, only: only ?? 'all' },
  targets: TARGETS,
};

// A checkout whose `serve` has no --quiet (older ones did not log requests) skips that row.
// The command line moved from mock/cli/ to cli/; an older checkout keeps it under mock/.
const serveSource = ['cli/serve.ts', 'mock/cli/serve.ts']
  .map((f) => path.join(root, f))
  .find((f) => existsSync(f))!;
const hasQuiet = readFileSync(serveSource, 'utf8').includes('--quiet');
const endpoints = ENDPOINTS.filter((e) => wants(e.part) && (e.part !== 'quiet' || hasQuiet));
// `npm start` first brings the CLI bundle up to date (prestart); so does the harness, so
// that the simulator rows measure what `npm start` runs (bundle, or tsx when it is stale).
const bundler = path.join(root, 'scripts/cli-bundle.mjs');
if (existsSync(bundler)) {
  // Its warnings (a bundle it could not build: the rows then run tsx) go to stderr as they are.
  const said = execFileSync(process.execPath, [bundler], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  if (said) log(said);
}
const needBuilt = wants('compiled') || wants('startup');
let buildDir: string | undefined;
if (needBuilt) {
  log('building the simulator to JavaScript (bench/build.ts) for the tsx comparison…');
  const build = buildSimulator(root);
  buildDir = build.buildDir;
  results.build = {
    ms: round(build.ms, 0),
    typeErrors: build.diagnostics.match(/error TS\d+/g)?.length ?? 0,
  };
}

let loadRows: LoadRow[] = [];
let ceiling: LoadRow | undefined;
if (endpoints.length > 0) {
  const servers: Record<string, RunningServer> = {};
  try {
    servers.bare = await startServer({ kind: 'bare' });
    if (endpoints.some((e) => e.server === 'sim')) servers.sim = await startServer({ kind: 'sim', root });
    if (endpoints.some((e) => e.server === 'sim-built'))
      servers['sim-built'] = await startServer({ kind: 'sim-built', root, buildDir: buildDir! });
    if (endpoints.some((e) => e.server === 'hono')) servers.hono = await startServer({ kind: 'hono' });
    if (endpoints.some((e) => e.server === 'sim-quiet'))
      servers['sim-quiet'] = await startServer({
        kind: 'sim',
        root,
        serveArgs: [...DEFAULT_SERVE_ARGS, '--quiet'],
      });
    log(
      `load: ${Object.values(servers)
        .map((s) => `${s.kind} (${s.runtime}) on ${s.url}`)
        .join(', ')}`,
    );
    const pairings = await runPairings(endpoints, servers);
    loadRows = pairings.rows;
    ceiling = pairings.ceiling;
    results.load = {
      ceiling,
      rows: loadRows,
      runs: pairings.runs.map((x) => ({ ...x, rps: round(x.rps, 1) })),
      quietWaits: waits,
    };
    results.simulatorRuntime = servers.sim?.runtime;
  } finally {
    for (const server of Object.values(servers)) await server.stop();
  }
}

let startup: Record<string, StartupResult> | undefined;
if (wants('startup')) {
  log('start-up: spawn to first 200 of GET /v1/tron/price…');
  // With the bench scenario (--config, as the load runs use) and with the embedded default
  // scenario (no --config: what `npm start` does, demo-key).
  const plain = ['--timing', 'instant', '--seed', '1'];
  startup = await measureStartups(
    {
      bare: { kind: 'bare' },
      sim: { kind: 'sim', root },
      'sim-built': { kind: 'sim-built', root, buildDir: buildDir! },
      'sim-default': { kind: 'sim', root, serveArgs: plain, apiKey: 'demo-key' },
      'sim-built-default': {
        kind: 'sim-built',
        root,
        buildDir: buildDir!,
        serveArgs: plain,
        apiKey: 'demo-key',
      },
    },
    quick ? 3 : 7,
  );
  results.startup = startup;
}

let growth: GrowthResult | undefined;
if (wants('growth')) {
  const sizes = quick ? [1e3, 1e4, 1e5] : [1e3, 1e4, 1e5, 1e6];
  log(`store growth and memory: ${sizes.join(', ')} orders (in-process, child with --expose-gc)…`);
  growth = await measureStoreGrowth({ root, sizes, windowMs: quick ? 200 : 300, rounds: quick ? 3 : 10 });
  results.growth = growth;
}

let contract: { inProcess: ContractTiming; overHttp: ContractTiming } | undefined;
if (wants('contract')) {
  log('contract suite: in-process (manual clock), then over HTTP (realistic timing)…');
  const count = quick ? 1 : repeat;
  contract = {
    inProcess: await timeContractInProcess(count, root),
    overHttp: await timeContractOverHttp(count, root),
  };
  results.contract = contract;
}

let saving: SaveLoadResult[] | undefined;
if (wants('save')) {
  log(
    'orders while a 10^5-order --state is saved (--save-interval 1000 and 200), then with --state on a new file and without --state…',
  );
  saving = await measureSaveLatency({
    root,
    cases: [
      { intervalMs: 1000, orders: 1e5 },
      { intervalMs: 200, orders: 1e5 },
      { intervalMs: 1000, orders: 0 },
      { intervalMs: null, orders: 0 },
    ],
    load,
  });
  results.save = saving;
}

let proxyOverhead: ProxyOverhead | undefined;
if (wants('proxy')) {
  log('proxy overhead: GET /v1/tron/price direct and through serve --upstream…');
  // 20 ms on average (10–30): a real service a network away answers in tens of ms; 0 is the worst case.
  proxyOverhead = await measureProxyOverhead({ root, load, repeat, upstreamLatenciesMs: [0, 20] });
  results.proxy = proxyOverhead;
}

// ---------------------------------------------------------------------------------------
// Report

const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const yes = (met: boolean, why = ''): string => (met ? 'yes' : `NO${why ? ` (${why})` : ''}`);

// After the issue's columns: the server's CPU time per request (median, µs; the ceiling's
// divided by it is what the ratio would be if the server had a core to itself), and the
// most CPU other processes used during any run of the row (cores).
const loadTable: string[][] = [
  ['name', 'req/s', 'ratio to ceiling', 'p50 ms', 'p99 ms', 'target', 'met?', 'CPU µs/req', 'other load'],
];
if (ceiling) {
  loadTable.push([
    ceiling.name,
    fmt(ceiling.rps, 0),
    '1.00',
    fmt(ceiling.p50Ms),
    fmt(ceiling.p99Ms),
    '',
    '',
    fmt(ceiling.cpuUsPerReq, 1),
    fmt(ceiling.maxForeignCores, 1),
  ]);
}
for (const row of loadRows) {
  loadTable.push([
    row.name,
    fmt(row.rps, 0),
    fmt(row.ratio),
    fmt(row.p50Ms),
    fmt(row.p99Ms),
    row.target,
    row.target ? yes(row.met, row.why) : '',
    fmt(row.cpuUsPerReq, 1),
    fmt(row.maxForeignCores, 1),
  ]);
}

interface OtherRow {
  name: string;
  value: string;
  target: string;
  met: boolean | undefined;
}
const otherRows: OtherRow[] = [];
if (startup) {
  const bare = startup.bare!.medianMs;
  const sim = startup.sim!;
  const built = startup['sim-built']!;
  otherRows.push({
    name: 'start to first 200: bare node:http',
    value: `${fmt(bare, 0)} ms`,
    target: '',
    met: undefined,
  });
  otherRows.push({
    name: `start to first 200: simulator (${sim.runtime})`,
    value: `${fmt(sim.medianMs, 0)} ms = ${fmt(sim.medianMs / bare)}x bare`,
    target: `<= ${TARGETS.startupVsBare}x bare`,
    met: sim.medianMs <= TARGETS.startupVsBare * bare,
  });
  otherRows.push({
    name: 'start to first 200: simulator (compiled JS)',
    value: `${fmt(built.medianMs, 0)} ms = ${fmt(built.medianMs / bare)}x bare`,
    target: `<= ${TARGETS.startupVsBare}x bare`,
    met: built.medianMs <= TARGETS.startupVsBare * bare,
  });
  for (const [name, label] of [
    ['sim-default', sim.runtime],
    ['sim-built-default', 'compiled JS'],
  ] as const) {
    const r = startup[name]!;
    otherRows.push({
      name: `start to first 200: simulator (${label}), no --config`,
      value: `${fmt(r.medianMs, 0)} ms = ${fmt(r.medianMs / bare)}x bare`,
      target: `<= ${TARGETS.startupVsBare}x bare`,
      met: r.medianMs <= TARGETS.startupVsBare * bare,
    });
  }
}
if (growth) {
  const first = growth.points[0]!;
  const last = growth.points.at(-1)!;
  const span = `${first.size.toExponential(0)} -> ${last.size.toExponential(0)}`.replace(/e\+/g, 'e');
  const worst = Math.max(growth.slowdown.httpByOrderId, growth.slowdown.httpByOutOrderNo);
  otherRows.push({
    name: `history lookup (HTTP in-process), ${span} orders, ${growth.rounds} rounds`,
    value: `orderId ${fmt(first.httpByOrderIdPerSec, 0)} -> ${fmt(last.httpByOrderIdPerSec, 0)}/s (${fmt(growth.slowdown.httpByOrderId)}x slower), outOrderNo ${fmt(first.httpByOutOrderNoPerSec, 0)} -> ${fmt(last.httpByOutOrderNoPerSec, 0)}/s (${fmt(growth.slowdown.httpByOutOrderNo)}x slower)`,
    target: `<= ${TARGETS.growthSlowdown}x slower`,
    met: worst <= TARGETS.growthSlowdown,
  });
  otherRows.push({
    name: '  the same, median of the per-round ratios',
    value: `orderId ${fmt(growth.medianRoundSlowdown.httpByOrderId)}x, outOrderNo ${fmt(growth.medianRoundSlowdown.httpByOutOrderNo)}x`,
    target: 'info',
    met: undefined,
  });
  otherRows.push({
    name: `engine.findOrder alone, ${span} orders`,
    value: `orderId ${fmt(growth.slowdown.engineByOrderId)}x slower, outOrderNo ${fmt(growth.slowdown.engineByOutOrderNo)}x (${fmt(last.engineByOrderIdPerSec / 1e6)} M/s at the largest)`,
    target: 'info',
    met: undefined,
  });
  otherRows.push({
    name: `memory at ${growth.memory.orders.toLocaleString('en')} stored orders (after gc)`,
    value: `RSS ${fmt(growth.memory.rssBytesPerOrder, 0)} B/order (${fmt(growth.memory.rssAfterMb, 0)} MB), heap ${fmt(growth.memory.heapBytesPerOrder, 0)} B/order`,
    target: `<= ${TARGETS.bytesPerOrder} B/order`,
    met: growth.memory.rssBytesPerOrder <= TARGETS.bytesPerOrder,
  });
  if (quick) otherRows.at(-1)!.name += ' [quick: 10^5, not 10^6]';
}
if (contract) {
  const c = contract;
  otherRows.push({
    name: 'contract suite in-process (manual clock)',
    value: c.inProcess.passed ? `${fmt(c.inProcess.medianMs / 1000)} s` : 'FAILED',
    target: `<= ${TARGETS.contractInProcessS} s`,
    met: c.inProcess.passed && c.inProcess.medianMs <= TARGETS.contractInProcessS * 1000,
  });
  otherRows.push({
    name: 'contract suite over HTTP (realistic timing)',
    value: c.overHttp.passed ? `${fmt(c.overHttp.medianMs / 1000)} s` : 'FAILED',
    target: `<= ${TARGETS.contractHttpS} s`,
    met: c.overHttp.passed && c.overHttp.medianMs <= TARGETS.contractHttpS * 1000,
  });
}
for (const r of saving ?? []) {
  const value = `p50 ${fmt(r.p50Ms)} ms, p99 ${fmt(r.p99Ms)} ms, max ${fmt(r.maxMs)} ms, ${fmt(r.rps, 0)} orders/s${r.valid ? '' : ' INVALID'}`;
  if (r.intervalMs === null || r.storedOrders === 0) {
    otherRows.push({
      name:
        r.intervalMs === null
          ? 'POST /v1/tron/order from an empty store without --state (to compare)'
          : `POST /v1/tron/order from an empty store with --state on a new file, --save-interval ${r.intervalMs}`,
      value,
      target: '',
      met: r.valid,
    });
    continue;
  }
  otherRows.push({
    name: `POST /v1/tron/order while a ${r.storedOrders.toLocaleString('en')}-order state (${fmt(r.fileBytes / 1e6, 0)} MB) is saved, --save-interval ${r.intervalMs}`,
    value,
    target: `p99 <= ${TARGETS.saveOrderP99Ms} ms`,
    met: r.valid && r.p99Ms <= TARGETS.saveOrderP99Ms,
  });
}
for (const o of proxyOverhead?.cases ?? []) {
  const upstream =
    o.upstreamLatencyMs === 0
      ? 'an upstream that answers at once'
      : `an upstream that answers in ${o.upstreamLatencyMs / 2}–${(o.upstreamLatencyMs * 3) / 2} ms`;
  otherRows.push({
    name: `GET /v1/tron/price through serve --upstream, ${upstream}, ${load.connections} connections`,
    value:
      `${fmt(o.proxied.rps, 0)} req/s = ${fmt(o.ratio)} of direct (${fmt(o.direct.rps, 0)}); p50 +${fmt(o.p50AddedMs)} ms, p99 +${fmt(o.p99AddedMs)} ms; ` +
      `bare node:http proxy ${fmt(o.bareProxy.rps, 0)} req/s = ${fmt(o.bareRatio)}, p50 +${fmt(o.bareProxy.p50Ms - o.direct.p50Ms)} ms; ` +
      `CPU µs/req: upstream ${fmt(o.direct.cpuUsPerReq, 1)}, proxy ${fmt(o.proxied.cpuUsPerReq, 1)}, bare proxy ${fmt(o.bareProxy.cpuUsPerReq, 1)}${o.valid ? '' : ' INVALID'}`,
    target: `>= ${TARGETS.proxyRatio} of direct, p50 +<= ${TARGETS.proxyP50AddedMs} ms`,
    met: o.valid && o.ratio >= TARGETS.proxyRatio && o.p50AddedMs <= TARGETS.proxyP50AddedMs,
  });
}
const otherTable: string[][] = [['measure', 'value', 'target', 'met?']];
for (const row of otherRows)
  otherTable.push([row.name, row.value, row.target, row.met === undefined ? '' : yes(row.met)]);

function markdown(table: string[][]): string {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]): string => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(table[0]!),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...table.slice(1).map(line),
  ].join('\n');
}

const notes: string[] = [];
notes.push(
  `${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, ${startedAt.toISOString()}; checkout ${checkout.head}` +
    `${checkout.dirty.length ? ` with uncommitted changes to ${checkout.dirty.length} file(s) of mock/ src/ spec/` : ''}.`,
);
if (loadRows.length) {
  notes.push(
    `Load: ${load.connections} connections, ${load.warmupS} s warm-up + ${load.durationS} s measured, median of ${repeat} alternating pairing(s); ` +
      `the simulator runs through ${String(results.simulatorRuntime ?? 'n/a')} (bin/energy-rental-kit.js).`,
  );
  const disturbed = [...loadRows, ...(ceiling ? [ceiling] : [])].filter(
    (r) => r.maxForeignCores > FOREIGN_LIMIT,
  );
  if (disturbed.length)
    notes.push(
      `Other processes used > ${FOREIGN_LIMIT} cores during some runs of: ${disturbed.map((r) => r.name).join('; ')} (see results.json runs[].foreignCores).`,
    );
  if (loadRows.some((r) => !r.valid))
    notes.push('INVALID: some load runs got responses that were not HTTP 200 with code 0.');
}
checkout.sourceDigestAtEnd = sourceDigest();
if (checkout.sourceDigestAtEnd !== checkout.sourceDigestAtStart) {
  const warning = `The simulator's sources changed during the run (digest ${checkout.sourceDigestAtStart} -> ${checkout.sourceDigestAtEnd}): parts measured later may have run newer code.`;
  notes.push(warning);
  log(`WARNING: ${warning}`);
}
results.checkout = checkout;
const report = [
  ...(loadRows.length ? [markdown(loadTable), ''] : []),
  ...(otherRows.length ? [markdown(otherTable), ''] : []),
  ...notes.map((n) => `- ${n}`),
].join('\n');
process.stdout.write(`\n${report}\n`);

results.finishedAt = new Date().toISOString();
results.seconds = round((Date.now() - startedAt.getTime()) / 1000, 1);
results.machine = { ...machine, loadAverageAtEnd: os.loadavg().map((v) => round(v, 2)) };
results.table = { load: loadTable, other: otherTable, notes };
writeFileSync(outFile, roundedJson(results, 3));
log(`\nwrote ${path.relative(process.cwd(), outFile)} (${results.seconds as number} s)`);
if (loadRows.some((r) => !r.valid) || (contract && (!contract.inProcess.passed || !contract.overHttp.passed)))
  process.exitCode = 1;
