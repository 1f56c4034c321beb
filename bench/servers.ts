/**
 * Starts the servers under test as separate processes on 127.0.0.1 and stops them.
 *
 * - the bare ceiling: `node bench/bare-server.mjs`
 * - a reference: the smallest Hono app, `node bench/hono-server.mjs`
 * - the proxy ceiling: `node bench/bare-proxy.mjs <port> <upstream>`, forwarding and nothing else
 * - the simulator as users run it: `node bin/energy-rental-kit.js serve …` (in a checkout
 *   the esbuild bundle of the sources when it is fresh, else tsx on them; `dist/` when
 *   the package is installed)
 * - the simulator from compiled JavaScript: `node bench/serve-built.mjs <build-dir> serve …`
 *
 * Every child started here is killed (by its pid) when the harness exits.
 */
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(BENCH_DIR, '..');
export const BENCH_SCENARIO = path.join(BENCH_DIR, 'bench-scenario.yaml');
export const BENCH_KEY = 'bench-key';
export const PLEDGE_ADDRESS = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';

export type ServerKind = 'bare' | 'bare-proxy' | 'hono' | 'sim' | 'sim-built';

export interface ServerSpec {
  kind: ServerKind;
  /** Checkout whose simulator runs (default: this repository). */
  root?: string;
  /** For 'sim-built': the directory bench/build.ts compiled into. */
  buildDir?: string;
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  /** Extra `serve` flags; default: the bench scenario, instant timing, seed 1. */
  serveArgs?: string[];
  /** Flags for node itself (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** For 'bare-proxy': the URL it forwards to. */
  upstream?: string;
}

export interface RunningServer {
  kind: ServerKind;
  /** How the simulator's code was loaded: 'bundle', 'tsx', 'dist' or 'compiled'; 'bare' for the ceiling. */
  runtime: string;
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
});

export const DEFAULT_SERVE_ARGS = ['--timing', 'instant', '--seed', '1', '--config', BENCH_SCENARIO];

/**
 * What bin/energy-rental-kit.js will run in `root`: 'tsx' (the TypeScript sources),
 * 'bundle' (their esbuild bundle, scripts/cli-bundle.mjs) or 'dist' (the built package).
 * The launcher has decided this three ways over time: first "dist/ when it exists", then
 * "the sources in a checkout, dist/ only with ENERGY_RENTAL_KIT_USE_DIST=1", then the
 * same with `serve` from the bundle when it is fresh; the label follows whichever this
 * checkout's launcher does.
 */
export function binRuntime(root: string): 'tsx' | 'bundle' | 'dist' {
  // cli/ today; mock/cli/ in older checkouts.
  const hasDist =
    existsSync(path.join(root, 'dist/cli/main.js')) || existsSync(path.join(root, 'dist/mock/cli/main.js'));
  let launcher: string;
  try {
    launcher = readFileSync(path.join(root, 'bin/energy-rental-kit.js'), 'utf8');
  } catch {
    return 'tsx';
  }
  if (launcher.includes('ENERGY_RENTAL_KIT_USE_DIST')) {
    const hasSource =
      existsSync(path.join(root, 'cli/main.ts')) || existsSync(path.join(root, 'mock/cli/main.ts'));
    if (!hasSource || process.env.ENERGY_RENTAL_KIT_USE_DIST === '1') return 'dist';
    const bundled =
      launcher.includes('cli-bundle.mjs') &&
      process.env.ENERGY_RENTAL_KIT_USE_TSX !== '1' &&
      bundleIsFresh(root);
    return bundled ? 'bundle' : 'tsx';
  }
  return hasDist ? 'dist' : 'tsx';
}

const freshBundles = new Map<string, boolean>();
/** Whether `root`'s CLI bundle is fresh; asked once per root (a child process, ~50 ms, best kept out of timed starts). */
function bundleIsFresh(root: string): boolean {
  let fresh = freshBundles.get(root);
  if (fresh === undefined) {
    fresh =
      spawnSync(process.execPath, [path.join(root, 'scripts/cli-bundle.mjs'), '--check'], {
        cwd: root,
        stdio: 'ignore',
      }).status === 0;
    freshBundles.set(root, fresh);
  }
  return fresh;
}

/** The command line that starts a server. */
export function serverCommand(spec: ServerSpec): {
  args: string[];
  runtime: string;
  cwd: string;
  port: number;
} {
  const root = spec.root ?? REPO_ROOT;
  const portNumber = spec.port ?? 0;
  const port = String(portNumber);
  const nodeArgs = spec.nodeArgs ?? [];
  if (spec.kind === 'bare')
    return {
      args: [...nodeArgs, path.join(BENCH_DIR, 'bare-server.mjs'), port],
      runtime: 'bare',
      cwd: root,
      port: portNumber,
    };
  if (spec.kind === 'bare-proxy')
    return {
      args: [...nodeArgs, path.join(BENCH_DIR, 'bare-proxy.mjs'), port, spec.upstream ?? ''],
      runtime: 'bare',
      cwd: root,
      port: portNumber,
    };
  if (spec.kind === 'hono')
    return {
      args: [...nodeArgs, path.join(BENCH_DIR, 'hono-server.mjs'), port],
      runtime: 'hono',
      cwd: REPO_ROOT,
      port: portNumber,
    };
  const serveArgs = [
    'serve',
    '--port',
    port,
    '--host',
    '127.0.0.1',
    ...(spec.serveArgs ?? DEFAULT_SERVE_ARGS),
  ];
  if (spec.kind === 'sim') {
    const runtime = binRuntime(root);
    return {
      args: [...nodeArgs, path.join(root, 'bin/energy-rental-kit.js'), ...serveArgs],
      runtime,
      cwd: root,
      port: portNumber,
    };
  }
  if (!spec.buildDir) throw new Error("A 'sim-built' server needs buildDir (see bench/build.ts).");
  return {
    args: [...nodeArgs, path.join(BENCH_DIR, 'serve-built.mjs'), spec.buildDir, ...serveArgs],
    runtime: 'compiled',
    cwd: root,
    port: portNumber,
  };
}

/**
 * Spawns a server and resolves once it accepts a connection. A start that
 * hangs (seen once on a machine busy with other builds) is killed and tried once more.
 */
export async function startServer(spec: ServerSpec, timeoutMs = 45_000): Promise<RunningServer> {
  try {
    return await startServerOnce(spec, timeoutMs);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('did not listen')) throw error;
    process.stderr.write(`bench: ${error.message.split('\n', 1)[0]}; trying once more\n`);
    return startServerOnce(spec, timeoutMs);
  }
}

async function startServerOnce(spec: ServerSpec, timeoutMs: number): Promise<RunningServer> {
  // The port is chosen here, not by the server, so that a server that prints nothing
  // (the simulator with --quiet) can still be found: it is ready when it accepts a connection.
  const chosenPort = spec.port || (await freePort());
  // The server's output goes to a file, not a pipe: the simulator logs every request, and
  // a pipe would make this process (which is also the load generator) read and decode
  // megabytes of log lines per second, taking CPU from the load it is meant to generate.
  const logFile = path.join(os.tmpdir(), `energy-rental-bench-${process.pid}-${++logFiles}.log`);
  const fd = openSync(logFile, 'w');
  const { child, runtime, stop } = spawnCommand(serverCommand({ ...spec, port: chosenPort }), [
    'ignore',
    fd,
    fd,
  ]);
  closeSync(fd);
  const output = (): string => {
    try {
      const text = readFileSync(logFile, 'utf8');
      return text.length > 32_768 ? `${text.slice(0, 16_384)}\n…\n${text.slice(-16_384)}` : text;
    } catch {
      return '';
    }
  };
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`${spec.kind} did not listen within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    const poll = (): void => {
      if (settled || child.exitCode !== null) return;
      const socket = net.connect(chosenPort, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      });
      socket.once('error', () => setTimeout(poll, 10));
    };
    poll();
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!settled)
        reject(new Error(`${spec.kind} exited (${code ?? signal}) before it listened:\n${output()}`));
      settled = true;
    });
  });
  return {
    kind: spec.kind,
    runtime,
    url: `http://127.0.0.1:${chosenPort}`,
    port: chosenPort,
    pid: child.pid!,
    child,
    output,
    async stop() {
      await stop();
      rmSync(logFile, { force: true });
    },
  };
}

let logFiles = 0;

/** SIGTERM, and SIGKILL if the child has not exited 10 s later. */
async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killed);
  }
  children.delete(child);
}

/** A port that was free a moment ago (for start-up timing, where the port must be known before spawn). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export type ServerCommand = ReturnType<typeof serverCommand>;

/**
 * Spawns a server's command without waiting for it (start-up timing builds the command
 * first: for the simulator that may ask whether the bundle is fresh, a child process of
 * its own). The child is killed when the harness exits.
 */
export function spawnCommand(
  command: ServerCommand,
  stdio: StdioOptions = 'ignore',
): { child: ChildProcess; runtime: string; stop(): Promise<void> } {
  const child = spawn(process.execPath, command.args, { cwd: command.cwd, stdio });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, runtime: command.runtime, stop: () => stopChild(child, exited) };
}
