/** `npm run bench`: what users feel, side by side, the simulator started through the CLI of any checkout (--root). */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { BIG_CASES, PRICE, runBigCase } from './big-answers.ts';
import { median, runLoad, type LoadResult, type LoadTarget } from './load.ts';
import { loadAverage, noFigure, note, report, row } from './report.ts';
import {
  BENCH_DIR,
  fixedCommand,
  freePort,
  prismCommand,
  simCommand,
  spawnServer,
  startServer,
  stopAll,
  TMP,
  wiremockCommand,
  type Command,
  type Server,
} from './servers.ts';

const ROWS = ['price', 'reads', 'orders', 'startup', 'contract', 'proxy', 'big'] as const;
const CONNECTIONS = 32;
const AUTH = { 'API-KEY': 'demo-key' };
const FORM = { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' };
/** No outOrderNo: every request creates an order. */
const ORDER_BODY = 'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h';
const GET_PRICE = { path: PRICE, headers: AUTH };
const SCENARIO = ['--config', path.join(BENCH_DIR, 'bench-scenario.yaml')];
const BAD = 'invalid: answers not 2xx with code 0, errors or timeouts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', default: ROWS.join(',') },
    root: { type: 'string', default: path.join(BENCH_DIR, '..') },
    out: { type: 'string', default: path.join(BENCH_DIR, 'results.json') },
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const only = values.only.split(',').map((name) => name.trim());
const unknown = only.filter((name) => !(ROWS as readonly string[]).includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: --only ${unknown.join(',')}: no such rows; the rows are ${ROWS.join(' ')}\n`);
  process.exit(2);
}
const wanted = (name: (typeof ROWS)[number]): boolean => only.includes(name);
const root = path.resolve(values.root);
const plan = values.quick
  ? { rounds: 2, seconds: 1, warmS: 1, starts: 3, suites: 1 }
  : { rounds: 7, seconds: 2, warmS: 2, starts: 7, suites: 3 };
const profiles = path.join(TMP, 'profiles');
/** `serve` of the checkout under test with `args` (and --timing instant --quiet unless it proxies). */
const ours = (...args: string[]): Command =>
  simCommand(
    root,
    args.includes('--upstream') ? ['--quiet', ...args] : ['--timing', 'instant', '--quiet', ...args],
    values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', profiles] : [],
  );

interface Contender {
  name: string;
  pid: number;
  target: () => Promise<LoadTarget>;
  warmS: number;
  runs: LoadResult[];
}
/** Every contender of the run by name, for the rows and the table of the servers under load. */
const measured = new Map<string, Contender>();
/** Why a contender is not there (a tool that could not be installed), by name. */
const skipped = new Map<string, string>();

/** `request` sent to `server` (or a target made afresh before each run), warmed up `warmS`. */
function contender(
  name: string,
  server: Server,
  request: Request | (() => Promise<LoadTarget>),
  warmS = plan.warmS,
) {
  const target =
    typeof request === 'function' ? request : async () => ({ ...request, url: server.url + request.path });
  measured.set(name, { name, pid: server.pid, target, warmS, runs: [] });
}
type Request = Omit<LoadTarget, 'url'> & { path: string };

/** Warms every contender up, then runs them in turn, round after round. */
async function race(): Promise<void> {
  const contenders = [...measured.values()].filter((c) => c.runs.length === 0);
  note(`warming ${contenders.length} servers up, then ${plan.rounds} round(s) of ${plan.seconds} s each`);
  for (const c of contenders) await runLoad(await c.target(), c.pid, CONNECTIONS, c.warmS);
  for (let round = 0; round < plan.rounds; round++) {
    // Every other round backwards: drift of a shared machine falls on every contender alike.
    for (const c of round % 2 ? [...contenders].reverse() : contenders)
      c.runs.push(await runLoad(await c.target(), c.pid, CONNECTIONS, plan.seconds));
  }
}

/** A row: the median over the rounds of a's req/s over b's (and CPU per answer), or of a's p50 less b's. */
function paired(
  name: string,
  a: string,
  b: string,
  target?: string,
  figure: 'ratio' | 'proxy' | 'p50 added' = 'ratio',
) {
  const why = skipped.get(a) ?? skipped.get(b);
  if (why) return noFigure(name, `skipped: ${why}`);
  const [runsA, runsB] = [measured.get(a)!.runs, measured.get(b)!.runs];
  if ([...runsA, ...runsB].some((run) => run.bad > 0)) return noFigure(name, BAD);
  const each = runsA.map((x, i) =>
    figure === 'p50 added' ? x.p50Ms - runsB[i]!.p50Ms : x.rps / runsB[i]!.rps,
  );
  const cpu = median(runsA.map((x, i) => runsB[i]!.cpuUs / x.cpuUs));
  row(name, median(each), figure === 'p50 added' ? 'ms' : 'x', target, figure === 'ratio' ? cpu : undefined);
}

/** GET price, reads and orders: every server up at once, each round running every contender in turn. */
async function loads(): Promise<void> {
  const sim = await startServer('sim', ours(...SCENARIO));
  const priceBody = await (await fetch(`${sim.url}${PRICE}`, { headers: AUTH })).text();
  const priceFile = path.join(TMP, 'price.json');
  writeFileSync(priceFile, priceBody);
  const bare = await startServer('bare', fixedCommand('bare', priceFile));
  contender('bare node:http GET', bare, GET_PRICE);
  if (wanted('price')) {
    contender('ours GET price', sim, GET_PRICE);
    contender('minimal Hono', await startServer('hono', fixedCommand('hono', priceFile)), GET_PRICE);
  }
  if (wanted('reads')) {
    // A history order is made before each run: the order runs fill the store, whose oldest go.
    contender('ours history by orderId', sim, async () => {
      const order = { method: 'POST', headers: FORM, body: ORDER_BODY };
      const made = await fetch(`${sim.url}/v1/tron/order`, order);
      const { data } = (await made.json()) as { data: { id: string } };
      return { url: `${sim.url}/v1/tron/history?orderId=${data.id}`, headers: AUTH };
    });
    contender('ours account', sim, { path: '/v1/account', headers: AUTH });
  }
  if (wanted('orders')) {
    const state = path.join(TMP, 'state');
    rmSync(state, { recursive: true, force: true });
    mkdirSync(state, { recursive: true });
    const withState = await startServer(
      'sim-state',
      ours(...SCENARIO, '--state', path.join(state, 'state.json')),
    );
    const order = { path: '/v1/tron/order', method: 'POST' as const, headers: FORM, body: ORDER_BODY };
    contender('bare node:http POST', bare, order);
    contender('ours POST order', sim, order);
    contender('ours POST order, --state', withState, order);
  }
  if (wanted('price')) {
    // Last in a round: a JVM's compiler and collector run on after its load. Its JIT needs a longer warm-up.
    const others = [
      ['Prism', prismCommand(root), plan.warmS],
      ['WireMock 3', wiremockCommand(PRICE.split('?')[0]!, priceBody), Math.max(10, plan.warmS * 5)],
    ] as const;
    for (const [name, command, warmS] of others) {
      if ('skipped' in command) skipped.set(name, command.skipped);
      else contender(name, await startServer(name.replace(/\W+/g, '-'), command), GET_PRICE, warmS);
    }
  }
  await race();
  if (wanted('price')) {
    paired('GET price: ours ÷ Prism', 'ours GET price', 'Prism', '≥ 10');
    paired('GET price: ours ÷ WireMock 3', 'ours GET price', 'WireMock 3', '> 1');
    paired('GET price: ours ÷ bare node:http', 'ours GET price', 'bare node:http GET');
    const floor = "GET price: minimal Hono ÷ bare node:http (the stack's floor)";
    paired(floor, 'minimal Hono', 'bare node:http GET');
  }
  if (wanted('reads')) {
    paired('history by orderId ÷ bare node:http', 'ours history by orderId', 'bare node:http GET', '≥ 0.6');
    paired('account ÷ bare node:http', 'ours account', 'bare node:http GET', '≥ 0.6');
  }
  if (wanted('orders')) {
    paired('orders (POST, form body) ÷ bare node:http', 'ours POST order', 'bare node:http POST', '≥ 0.35');
    paired('orders with --state ÷ without', 'ours POST order, --state', 'ours POST order');
  }
}

/** Spawn → first 200 with code 0 to GET price (polled every 2 ms), ms. */
async function timeStart(name: string, command: Command): Promise<number> {
  const server = spawnServer(`start-${name}`, command, await freePort());
  const began = performance.now();
  const answers = () =>
    fetch(`${server.url}${PRICE}`, { headers: AUTH }).then(
      async (res) => res.status === 200 && (await res.text()).startsWith('{"code":0,'),
      () => false,
    );
  try {
    for (; !(await answers()); await sleep(2))
      if (server.child.exitCode !== null)
        throw new Error(`${name} exited before answering:\n${server.log()}`);
    return performance.now() - began;
  } finally {
    await server.stop();
  }
}

async function startups(): Promise<void> {
  const commands = {
    ours: ours(),
    'bare node:http': fixedCommand('bare'),
    'minimal Hono': fixedCommand('hono'),
  };
  const samples: Record<string, number[]> = {};
  // One start of each first, thrown away: it fills the file-system cache.
  for (const [name, command] of Object.entries(commands)) await timeStart(name, command);
  for (let i = 0; i < plan.starts; i++)
    for (const [name, command] of Object.entries(commands))
      (samples[name] ??= []).push(await timeStart(name, command));
  const ms = Object.fromEntries(Object.entries(samples).map(([name, all]) => [name, median(all)]));
  row(
    `start-up: ours (${ms.ours!.toFixed(0)} ms) ÷ bare node:http (${ms['bare node:http']!.toFixed(0)} ms)`,
    ms.ours! / ms['bare node:http']!,
    'x',
    '≤ 2',
  );
  row('start-up: minimal Hono', ms['minimal Hono']!, 'ms');
}

/** Where the last suite run's output is kept, for a run that fails. */
const SUITE_LOG = path.join(TMP, 'contract-suite.log');

/** The contract suite through the CLI (`contract …`) from the built dist/, as an installed package runs it: ms and exit code. */
async function suite(args: string[]): Promise<{ ms: number; code: number | null }> {
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CONTRACT_'))),
    ENERGY_RENTAL_KIT_USE_DIST: '1',
  };
  const cli = [
    path.join(root, 'bin/energy-rental-kit.js'),
    'contract',
    '--report',
    path.join(TMP, 'contract.json'),
  ];
  const began = performance.now();
  const log = openSync(SUITE_LOG, 'w');
  const child = spawn(process.execPath, [...cli, ...args], { cwd: root, env, stdio: ['ignore', log, log] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  closeSync(log);
  return { ms: performance.now() - began, code };
}

async function contract(): Promise<void> {
  // In a checkout the CLI and the suite would run through tsx and vite's TypeScript transform, which users never run.
  const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe', encoding: 'utf8' });
  if (built.status !== 0)
    return noFigure('contract suite', `invalid: npm run build failed: ${built.stderr.trim()}`);
  const ways: Record<string, () => Promise<{ ms: number; code: number | null }>> = {
    'in process': () => suite([]),
    'against serve --timing instant': async () => {
      const sim = await startServer('sim-contract', ours());
      try {
        return await suite(['--base-url', sim.url, '--api-key', 'demo-key', '--max-rps', '0']);
      } finally {
        await sim.stop();
      }
    },
  };
  for (const [way, run] of Object.entries(ways)) {
    const runs = [];
    for (let i = 0; i < plan.suites; i++) {
      runs.push(await run());
      if (runs.at(-1)!.code !== 0) break; // SUITE_LOG then holds the failed run's output
    }
    const failed = runs.find((r) => r.code !== 0);
    if (failed)
      noFigure(
        `contract suite ${way}`,
        `invalid: the suite exited ${failed.code} (its output: ${SUITE_LOG})`,
      );
    else row(`contract suite ${way}: wall time`, median(runs.map((r) => r.ms)) / 1000, 's', '< 5');
  }
}

/** `serve --upstream` in front of an upstream 10-30 ms away, against it directly and a bare node:http proxy. */
async function proxy(): Promise<void> {
  const upstream = await startServer('upstream-slow', fixedCommand('slow'));
  const [direct, through, bare] = [
    'upstream 10-30 ms away',
    'ours --upstream in front of it',
    'bare node:http proxy',
  ];
  contender(direct, upstream, GET_PRICE);
  contender(through, await startServer('proxy', ours('--upstream', upstream.url)), GET_PRICE);
  contender(bare, await startServer('bare-proxy', fixedCommand('proxy', upstream.url)), GET_PRICE);
  await race();
  paired('proxy ÷ direct req/s (upstream 10-30 ms away)', through, direct, '≥ 0.9', 'proxy');
  paired('proxy p50 − direct p50', through, direct, '≤ 1', 'p50 added');
  paired("bare node:http proxy ÷ direct req/s (a proxy's floor)", bare, direct, undefined, 'proxy');
  paired('bare node:http proxy p50 − direct p50', bare, direct, undefined, 'p50 added');
}

async function big(): Promise<void> {
  for (const c of BIG_CASES) {
    note(`${c.name}…`);
    const result = await runBigCase(root, c);
    if (result.problem) {
      noFigure(c.name, `invalid: ${result.problem}`);
      continue;
    }
    row(`${c.name}: slowest of ${result.polls} health polls`, result.healthMaxMs, 'ms', '≤ 100');
    const running = ` (most run without a turn: ${result.hold.maxRunMs.toFixed(0)} ms)`;
    row(`${c.name}: longest loop hold${running}`, result.hold.maxMs, 'ms', '≤ 100');
    const recorded = result.recordedMs ? ` (recorded in ${(result.recordedMs / 1000).toFixed(1)} s)` : '';
    row(
      `${c.name}: answered in${recorded}`,
      result.answerMs,
      'ms',
      c.answerWithinMs ? `≤ ${c.answerWithinMs}` : undefined,
    );
  }
}

function commitOf(dir: string): string {
  const git = (...args: string[]) =>
    spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).stdout?.trim();
  const head = git('rev-parse', '--short', 'HEAD');
  if (!head) return 'not a git checkout';
  return git('status', '--porcelain', '--untracked-files=no') ? `${head} + uncommitted changes` : head;
}

const at = new Date().toISOString().slice(0, 16);
const loadBefore = loadAverage();
note(`${root} (${commitOf(root)}); ${os.cpus().length} cores, load average ${loadBefore}`);
// As `npm start` does (the CLI bundle brought up to date), so no timed start builds it.
spawnSync('npm', ['run', '--silent', '--if-present', 'prestart'], { cwd: root, stdio: 'ignore' });
const phases: [(typeof ROWS)[number][], () => Promise<void>][] = [
  [['price', 'reads', 'orders'], loads],
  [['startup'], startups],
  [['contract'], contract],
  [['proxy'], proxy],
  [['big'], big],
];
for (const [names, phase] of phases) {
  if (!names.some(wanted)) continue;
  try {
    await phase();
  } catch (error) {
    noFigure(
      names.join(', '),
      `invalid: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  } finally {
    await stopAll();
  }
}
const header = [
  `energy-rental-kit bench, ${at}Z, ${commitOf(root)} at ${root}`,
  `node ${process.version}, ${os.cpus().length} cores, load average ${loadBefore} before, ${loadAverage()} after` +
    `${values.quick ? ', --quick' : ''}; ${plan.rounds} round(s) of ${plan.seconds} s at ${CONNECTIONS} connections`,
];
process.exitCode = report(values.out, header, [...measured.values()]) ? 0 : 1;
