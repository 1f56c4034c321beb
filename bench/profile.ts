/**
 * CPU profiles of the simulator under load (`npm run bench -- --profile`).
 *
 * Each case starts a simulator under `node --cpu-prof` (compiled JS from bench/build.ts,
 * whose source maps lead back to the TypeScript, and, for comparison, through tsx as
 * bin/energy-rental-kit.js runs it), warms it up, loads one endpoint with autocannon at
 * 32 connections, stops it with SIGTERM (which writes the profile) and summarises the
 * samples of the load window. Start-up is profiled too: from the spawn to the first good
 * response. Writes bench/profiles/*.cpuprofile (open them in Chrome
 * DevTools or speedscope) and bench/profile-summary.md / .json.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSimulator } from './build.ts';
import { checkoutState, describeCheckout } from './checkout.ts';
import { summariseProfile, type ProfileSummary } from './cpuprofile.ts';
import { runLoad, type LoadResult, type LoadTarget } from './load.ts';
import { accountTarget, createHistoryOrder, historyTarget, orderTarget, priceTarget } from './requests.ts';
import {
  BENCH_DIR,
  DEFAULT_SERVE_ARGS,
  startServer,
  type RunningServer,
  type ServerKind,
} from './servers.ts';
import { timeOneStart } from './startup.ts';
import { round, roundedJson } from './stats.ts';

interface ProfileCase {
  name: string;
  kind: ServerKind;
  target: (sim: RunningServer, orderId: string) => LoadTarget;
  /** Profiles `serve --upstream` in front of a second simulator (not profiled) instead of the simulator itself. */
  proxy?: boolean;
}

const CASES: ProfileCase[] = [
  { name: 'price-compiled', kind: 'sim-built', target: priceTarget },
  { name: 'order-compiled', kind: 'sim-built', target: orderTarget },
  { name: 'history-compiled', kind: 'sim-built', target: (sim, id) => historyTarget(sim, 'orderId', id) },
  { name: 'account-compiled', kind: 'sim-built', target: accountTarget },
  { name: 'proxy-compiled', kind: 'sim-built', target: priceTarget, proxy: true },
  { name: 'price-tsx', kind: 'sim', target: priceTarget },
  { name: 'order-tsx', kind: 'sim', target: orderTarget },
];

/** Start-up cases: profiled from the spawn to the first good response. */
const STARTUP_CASES: { name: string; kind: ServerKind }[] = [
  { name: 'startup-compiled', kind: 'sim-built' },
  { name: 'startup-tsx', kind: 'sim' },
];

export interface ProfileCaseResult {
  name: string;
  runtime: string;
  load: Pick<LoadResult, 'rps' | 'p50Ms' | 'p99Ms' | 'valid'>;
  summary: ProfileSummary;
}

/**
 * Moves the main thread's profile out of a case's directory to `file` and removes the
 * directory: tsx's loader thread writes a profile of its own next to it.
 */
function takeMainThreadProfile(caseDir: string, file: string): string {
  // CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile; the main thread is tid 0.
  const mainThread = readdirSync(caseDir).find((f) => f.endsWith('.cpuprofile') && f.split('.')[4] === '0');
  if (!mainThread)
    throw new Error(`no main-thread profile in ${caseDir}: ${readdirSync(caseDir).join(', ')}`);
  renameSync(path.join(caseDir, mainThread), file);
  rmSync(caseDir, { recursive: true, force: true });
  return file;
}

export async function runProfiles(options: {
  root: string;
  quick: boolean;
  only?: string[];
}): Promise<ProfileCaseResult[]> {
  const { buildDir } = buildSimulator(options.root);
  const dir = path.join(BENCH_DIR, 'profiles');
  mkdirSync(dir, { recursive: true });
  const durationS = options.quick ? 3 : 8;
  const results: ProfileCaseResult[] = [];
  for (const c of CASES.filter((x) => !options.only || options.only.includes(x.name))) {
    // One directory per case: tsx's loader runs in a worker thread that writes a profile
    // of its own, so the main thread's file (thread id 0) is picked out afterwards.
    const caseDir = path.join(dir, c.name);
    rmSync(caseDir, { recursive: true, force: true });
    mkdirSync(caseDir, { recursive: true });
    // The upstream quiet, as in the proxy bench: its request log would take CPU from the proxy under profile.
    const upstream = c.proxy
      ? await startServer({
          kind: c.kind,
          root: options.root,
          buildDir,
          serveArgs: [...DEFAULT_SERVE_ARGS, '--quiet'],
        })
      : undefined;
    const spawnedAt = performance.now();
    const sim = await startServer({
      kind: c.kind,
      root: options.root,
      buildDir,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', caseDir, '--cpu-prof-interval', '250'],
      ...(upstream ? { serveArgs: ['--quiet', '--upstream', upstream.url] } : {}),
    });
    try {
      const target = c.target(sim, upstream ? '' : (await createHistoryOrder(sim)).orderId);
      await runLoad(target, { connections: 32, durationS: 1.5, warmupS: 0 });
      const fromMs = performance.now() - spawnedAt;
      const load = await runLoad(target, { connections: 32, durationS, warmupS: 0 });
      const toMs = performance.now() - spawnedAt;
      await sim.stop();
      const profileFile = takeMainThreadProfile(caseDir, path.join(dir, `${c.name}.cpuprofile`));
      const summary = summariseProfile(profileFile, { fromMs, toMs, root: options.root, buildDir, top: 25 });
      results.push({
        name: c.name,
        runtime: sim.runtime,
        load: { rps: load.rps, p50Ms: load.p50Ms, p99Ms: load.p99Ms, valid: load.valid },
        summary,
      });
      process.stderr.write(
        `profile ${c.name}: ${Math.round(load.rps)} req/s under the profiler, ${summary.busySamples} busy samples\n`,
      );
    } finally {
      await sim.stop();
      await upstream?.stop();
    }
  }

  for (const c of STARTUP_CASES.filter((x) => !options.only || options.only.includes(x.name))) {
    const caseDir = path.join(dir, c.name);
    rmSync(caseDir, { recursive: true, force: true });
    mkdirSync(caseDir, { recursive: true });
    // Discarded first start: warms the file cache (and tsx's transform cache).
    await timeOneStart({ kind: c.kind, root: options.root, buildDir });
    const { ms } = await timeOneStart({
      kind: c.kind,
      root: options.root,
      buildDir,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', caseDir, '--cpu-prof-interval', '100'],
    });
    const profileFile = takeMainThreadProfile(caseDir, path.join(dir, `${c.name}.cpuprofile`));
    // The whole profile up to the first good response (the profiler starts a little after the spawn).
    const summary = summariseProfile(profileFile, {
      fromMs: 0,
      toMs: ms,
      root: options.root,
      buildDir,
      top: 25,
    });
    results.push({
      name: c.name,
      runtime: c.kind === 'sim' ? 'tsx' : 'compiled',
      load: { rps: NaN, p50Ms: ms, p99Ms: NaN, valid: true },
      summary,
    });
    process.stderr.write(
      `profile ${c.name}: first good response after ${Math.round(ms)} ms (under the profiler)\n`,
    );
  }

  const md: string[] = [
    '# CPU profiles under load',
    '',
    `Generated by \`npm run bench -- --profile\` on ${new Date().toISOString()} (${os.cpus().length} CPUs, Node ${process.version}), checkout ${describeCheckout(checkoutState(options.root))}.`,
    `Each case: ${durationS} s at 32 connections after a 1.5 s warm-up, sampled every 250 µs; shares are of the main thread's busy (non-idle) samples in the load window.`,
    'Compiled cases map frames back to the TypeScript through source maps; under tsx only the file is known (its line numbers are those of the transformed code).',
    "The sampler counts the main thread's wall-clock time: time the server spends descheduled inside a system call (on 2 shared cores, mostly the response's socket write `writev`, right after it wakes the load generator) is counted to that call, so `writev` reads larger than the CPU it uses (compare the `CPU µs/req` column of `npm run bench`, from /proc). strace shows one writev and one read per request for the simulator and the bare server alike.",
    '',
  ];
  for (const r of results) {
    const s = r.summary;
    md.push(
      Number.isFinite(r.load.rps)
        ? `## ${r.name} (${r.runtime}): ${Math.round(r.load.rps)} req/s under the profiler, main thread busy ${round(s.busyPct, 0)}% of ${round(s.windowS, 1)} s`
        : `## ${r.name} (${r.runtime}): first good response ${Math.round(r.load.p50Ms)} ms after the spawn (under the profiler); main thread busy ${round(s.busyPct, 0)}% of the ${round(s.windowS, 2)} s profiled`,
      '',
    );
    md.push('By area (self time):', '', '| area | self % |', '|---|---|');
    for (const a of s.areas.slice(0, 12)) md.push(`| ${a.area} | ${round(a.selfPct, 1)} |`);
    md.push(
      '',
      'Top functions by self time (hottest lines for our code and packages; for Node internals and natives, the nearest simulator or package frame that called them):',
      '',
      '| self % | total % | function | location | hottest lines / called from |',
      '|---|---|---|---|---|',
    );
    for (const f of s.topSelf) {
      const detail = f.calledFrom
        ? `from ${f.calledFrom.map((c) => `\`${c.name}\` ${c.location} (${round(c.pct, 1)}%)`).join(', ')}`
        : (f.hotLines ?? []).map((l) => `${l.location} (${round(l.pct, 1)}%)`).join(', ');
      md.push(
        `| ${round(f.selfPct, 1)} | ${round(f.totalPct, 1)} | \`${f.name}\` | ${f.location || f.area} | ${detail} |`,
      );
    }
    md.push(
      '',
      'Top functions by total (inclusive) time:',
      '',
      '| total % | self % | function | location |',
      '|---|---|---|---|',
    );
    for (const f of s.topTotal.slice(0, 30))
      md.push(`| ${round(f.totalPct, 1)} | ${round(f.selfPct, 1)} | \`${f.name}\` | ${f.location} |`);
    md.push(
      '',
      'Simulator functions (mock/, src/) by total time:',
      '',
      '| total % | self % | function | location |',
      '|---|---|---|---|',
    );
    for (const f of s.topOurs)
      md.push(`| ${round(f.totalPct, 1)} | ${round(f.selfPct, 1)} | \`${f.name}\` | ${f.location} |`);
    md.push('');
  }
  // A partial run (--only) does not replace the committed summary of the full set.
  const base = options.only
    ? path.join(dir, `summary-${options.only.join('+')}`)
    : path.join(BENCH_DIR, 'profile-summary');
  writeFileSync(`${base}.md`, `${md.join('\n')}\n`);
  writeFileSync(`${base}.json`, roundedJson(results, 2));
  process.stdout.write(`${md.join('\n')}\n`);
  process.stderr.write(
    `wrote ${path.relative(process.cwd(), base)}.md and .json, and bench/profiles/*.cpuprofile\n`,
  );
  return results;
}
