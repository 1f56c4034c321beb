/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and summarises where CPU time went inside a
 * time window: self time per function, inclusive time per function, time per area
 * (simulator files, each npm package, Node internals, GC), and the hottest lines.
 *
 * Frames of code compiled by bench/build.ts are mapped back to the TypeScript source
 * with the emitted source maps, so locations read `mock/http/create-app.ts:52`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionTime {
  name: string;
  /** Source location, e.g. `mock/http/create-app.ts:52` or `hono/dist/hono-base.js:180`. */
  location: string;
  area: string;
  /** Share of busy (non-idle) samples, percent. */
  selfPct: number;
  totalPct: number;
  /** Hottest lines of the function (self ticks), for the top entries. */
  hotLines?: { location: string; pct: number }[];
  /**
   * For Node-internal and native functions: the nearest simulator or npm-package frames
   * above them, i.e. which code of ours or of a dependency made the call (share of all
   * busy samples).
   */
  calledFrom?: { name: string; location: string; pct: number }[];
}

export interface ProfileSummary {
  file: string;
  windowS: number;
  samples: number;
  busySamples: number;
  /** Busy share of the window: 100% means one core fully used by the main thread. */
  busyPct: number;
  areas: { area: string; selfPct: number }[];
  topSelf: FunctionTime[];
  topTotal: FunctionTime[];
  /** The simulator's own functions (mock/, src/) by inclusive time. */
  topOurs: FunctionTime[];
}

export interface SummaryOptions {
  /** Keep samples from this many ms after the profile started… */
  fromMs: number;
  /** …to this many ms (default: the end). */
  toMs?: number;
  /** The checkout whose files are called `mock/…`, `src/…`. */
  root: string;
  /** Where bench/build.ts compiled that checkout, to map frames back to TypeScript. */
  buildDir?: string;
  top?: number;
}

const sourceMaps = new Map<string, SourceMap | null>();
function sourceMapFor(file: string): SourceMap | null {
  if (!sourceMaps.has(file)) {
    const mapFile = `${file}.map`;
    sourceMaps.set(
      file,
      existsSync(mapFile)
        ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload)
        : null,
    );
  }
  return sourceMaps.get(file)!;
}

/** `file:///…/node_modules/hono/dist/x.js` -> `hono/dist/x.js`; a project file -> `mock/…`. */
function describe(
  frame: { url: string; line: number; column: number },
  options: SummaryOptions,
): { location: string; area: string } {
  const { url } = frame;
  if (url === '') return { location: '(native or eval)', area: 'V8 builtins / native / eval' };
  if (url.startsWith('node:')) return { location: `${url}:${frame.line + 1}`, area: 'node internals' };
  let file = url;
  try {
    if (url.startsWith('file:')) file = fileURLToPath(url);
  } catch {
    /* keep the url */
  }
  let line = frame.line;
  if (options.buildDir && file.startsWith(options.buildDir + path.sep)) {
    const map = sourceMapFor(file);
    const entry = map?.findEntry(frame.line, frame.column) as
      { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource) {
      file = entry.originalSource.startsWith('file:')
        ? fileURLToPath(entry.originalSource)
        : path.resolve(path.dirname(file), entry.originalSource);
      line = entry.originalLine ?? line;
    } else {
      file = path.join(options.root, path.relative(options.buildDir, file));
    }
  }
  const nm = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (nm !== -1) {
    const rest = file.slice(nm + 14);
    const parts = rest.split(path.sep);
    const pkg = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
    return { location: `${rest}:${line + 1}`, area: `npm: ${pkg}` };
  }
  const rel = path.relative(options.root, file);
  if (!rel.startsWith('..')) {
    const area = rel.startsWith('mock/engine')
      ? 'simulator: mock/engine'
      : rel.startsWith('mock/http')
        ? 'simulator: mock/http'
        : `simulator: ${rel.split(path.sep).slice(0, 2).join('/')}`;
    return { location: `${rel}:${line + 1}`, area };
  }
  return { location: `${file}:${line + 1}`, area: 'other' };
}

/** Summarises one profile over a window of its samples. */
export function summariseProfile(file: string, options: SummaryOptions): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) byId.set(node.id, node);
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // One key per function (name and location), shared by all the nodes of its call sites.
  const keyOf = new Map<number, string>();
  const info = new Map<string, { name: string; location: string; area: string; special: boolean }>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    const special = url === '' && /^\(.*\)$/.test(functionName);
    const where = special
      ? { location: '', area: functionName }
      : describe({ url, line: lineNumber, column: columnNumber }, options);
    const name = functionName || '(anonymous)';
    const key = `${name}@${where.location}`;
    keyOf.set(node.id, key);
    if (!info.has(key)) info.set(key, { name, ...where, special });
  }

  const isOurs = (key: string): boolean => {
    const area = info.get(key)!.area;
    return area.startsWith('simulator:') || area.startsWith('npm:');
  };
  // self key -> nearest ours-or-npm ancestor key -> samples
  const attribution = new Map<string, Map<string, number>>();
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const selfNodes = new Map<number, number>();
  let t = profile.startTime;
  let samples = 0;
  let idle = 0;
  const from = profile.startTime + options.fromMs * 1000;
  const to = options.toMs === undefined ? Infinity : profile.startTime + options.toMs * 1000;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < from || t > to) continue;
    const id = profile.samples[i]!;
    samples++;
    const key = keyOf.get(id)!;
    if (key.startsWith('(idle)')) {
      idle++;
      continue;
    }
    self.set(key, (self.get(key) ?? 0) + 1);
    selfNodes.set(id, (selfNodes.get(id) ?? 0) + 1);
    if (!isOurs(key)) {
      let owner = '(none)';
      for (let n = parent.get(id); n !== undefined; n = parent.get(n)) {
        if (isOurs(keyOf.get(n)!)) {
          owner = keyOf.get(n)!;
          break;
        }
      }
      const m = attribution.get(key) ?? new Map<string, number>();
      m.set(owner, (m.get(owner) ?? 0) + 1);
      attribution.set(key, m);
    }
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const k = keyOf.get(n)!;
      if (!seen.has(k)) {
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + 1);
      }
    }
  }
  const busy = samples - idle;
  const pct = (n: number): number => (busy === 0 ? 0 : (100 * n) / busy);

  const areas = new Map<string, number>();
  for (const [key, n] of self) {
    const area = info.get(key)!.area;
    areas.set(area, (areas.get(area) ?? 0) + n);
  }

  // Hottest lines per function, from the position ticks of its nodes.
  const lineTicks = new Map<string, Map<string, number>>();
  for (const [id] of selfNodes) {
    const node = byId.get(id)!;
    const key = keyOf.get(id)!;
    for (const tick of node.positionTicks ?? []) {
      const where = describe(
        { url: node.callFrame.url, line: tick.line - 1, column: 10_000 },
        options,
      ).location;
      const lines = lineTicks.get(key) ?? new Map<string, number>();
      lines.set(where, (lines.get(where) ?? 0) + tick.ticks);
      lineTicks.set(key, lines);
    }
  }

  const top = options.top ?? 25;
  const entry = (key: string): FunctionTime => {
    const i = info.get(key)!;
    return {
      name: i.name,
      location: i.location,
      area: i.area,
      selfPct: pct(self.get(key) ?? 0),
      totalPct: pct(total.get(key) ?? 0),
    };
  };
  const topSelf = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key]) => {
      const e = entry(key);
      const lines = lineTicks.get(key);
      if (lines && !info.get(key)!.special) {
        const sum = [...lines.values()].reduce((a, b) => a + b, 0);
        const ownShare = self.get(key) ?? 0;
        e.hotLines = [...lines.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([location, n]) => ({ location, pct: pct((n / sum) * ownShare) }));
      }
      const from = attribution.get(key);
      if (from) {
        e.calledFrom = [...from.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([k, n]) => ({
            name: info.get(k)?.name ?? k,
            location: info.get(k)?.location ?? '',
            pct: pct(n),
          }));
      }
      return e;
    });
  const topTotal = [...total.entries()]
    // Named functions, and every simulator function (its middleware is often anonymous).
    .filter(([key]) => {
      const i = info.get(key)!;
      return !i.special && (i.name !== '(anonymous)' || /^(mock|src)\//.test(i.location));
    })
    .sort((a, b) => b[1] - a[1])
    .slice(0, top * 2)
    .map(([key]) => entry(key));

  const topOurs = [...total.entries()]
    .filter(([key]) => /^(mock|src)\//.test(info.get(key)!.location))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key]) => entry(key));

  return {
    file,
    windowS: (Math.min(to, profile.endTime) - Math.max(from, profile.startTime)) / 1e6,
    samples,
    busySamples: busy,
    busyPct: samples === 0 ? 0 : (100 * busy) / samples,
    areas: [...areas.entries()].sort((a, b) => b[1] - a[1]).map(([area, n]) => ({ area, selfPct: pct(n) })),
    topSelf,
    topTotal,
    topOurs,
  };
}
