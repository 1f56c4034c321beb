/** The servers under the bench: a process each on 127.0.0.1, its output to a file, stopped by its pid. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const TMP = path.join(BENCH_DIR, 'tmp');

export interface Server {
  url: string;
  pid: number;
  child: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

/** A program and its arguments (`{port}` stands for the port), where and with what it runs. */
export interface Command {
  file: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

const running = new Set<Server>();
process.once('exit', () => {
  for (const { child } of running) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Spawns `command` on `port`, its output to bench/tmp/<name>.log. */
export function spawnServer(name: string, command: Command, port: number): Server {
  mkdirSync(TMP, { recursive: true });
  const logFile = path.join(TMP, `${name}.log`);
  const fd = openSync(logFile, 'w');
  const args = command.args.map((arg) => arg.replace('{port}', String(port)));
  const env = { ...process.env, ...command.env };
  const child = spawn(command.file, args, { cwd: command.cwd ?? BENCH_DIR, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const server: Server = {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
    log: () => readFileSync(logFile, 'utf8').slice(-4000),
    async stop() {
      running.delete(server);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    },
  };
  running.add(server);
  return server;
}

/** Starts a server and resolves once it accepts a connection (60 s at most: a JVM on a busy machine). */
export async function startServer(name: string, command: Command): Promise<Server> {
  const port = await freePort();
  const server = spawnServer(name, command, port);
  for (const began = Date.now(); !(await accepts(port)); await sleep(20)) {
    if (server.child.exitCode === null && Date.now() - began < 60_000) continue;
    await server.stop();
    throw new Error(`${name} did not listen (exit ${server.child.exitCode}):\n${server.log()}`);
  }
  return server;
}

/** Stops every server started and not stopped yet. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((server) => server.stop()));
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1').setTimeout(1000, () => socket.destroy());
    socket.once('connect', () => resolve(true)).once('close', () => resolve(false));
    socket.once('connect', () => socket.destroy()).once('error', () => {});
  });
}

/** `serve` of the checkout at `root`, as users start it; `nodeArgs` for node itself. */
export function simCommand(root: string, serveArgs: string[], nodeArgs: string[] = []): Command {
  const bin = path.join(root, 'bin/energy-rental-kit.js');
  return {
    file: process.execPath,
    args: [...nodeArgs, bin, 'serve', '--port', '{port}', ...serveArgs],
    cwd: root,
  };
}

/** The node flags of the preload that reports a server's longest event-loop hold (loop-delay.mjs). */
export const LOOP_DELAY_ARGS = ['--import', pathToFileURL(path.join(BENCH_DIR, 'loop-delay.mjs')).href];

/** One of fixed-servers.mjs's servers; `extra` is its body file, or a proxy's upstream URL. */
export function fixedCommand(kind: string, extra?: string): Command {
  const script = path.join(BENCH_DIR, 'fixed-servers.mjs');
  return { file: process.execPath, args: [script, kind, '{port}', ...(extra ? [extra] : [])] };
}

/** A tool installed on first use into bench/.tools/<name> (never a devDependency): `file`'s path, or why not. */
function tool(name: string, spec: string, file: string): string | { skipped: string } {
  const prefix = path.join(BENCH_DIR, '.tools', name);
  const target = path.join(prefix, 'node_modules', spec.slice(0, spec.lastIndexOf('@')), file);
  if (existsSync(target)) return target;
  process.stderr.write(`bench: installing ${spec} into bench/.tools/${name}\n`);
  const args = ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', spec];
  const npm = spawnSync('npm', [...args, '--loglevel=error'], { stdio: 'pipe', encoding: 'utf8' });
  if (npm.status === 0 && existsSync(target)) return target;
  const lines = (npm.stderr || String(npm.error)).split('\n');
  const why = lines.find((line) => /error/i.test(line) && !/complete log/.test(line))?.trim();
  return { skipped: `could not install ${spec} (${why ?? `npm exited ${npm.status}`})` };
}

/** Prism 5.14.2 (the last on Node 20; 5.15 wants Node 24) mocking the checkout's spec, quiet as ours. */
export function prismCommand(root: string): Command | { skipped: string } {
  const cli = tool('prism', '@stoplight/prism-cli@5.14.2', 'dist/index.js');
  if (typeof cli !== 'string') return cli;
  const spec = path.join(root, 'spec/openapi.yaml');
  const args = [cli, 'mock', spec, '-p', '{port}', '-h', '127.0.0.1', '-v', 'warn'];
  return { file: process.execPath, args };
}

/** WireMock 3 standalone with one static stub, GET `urlPath` answered `body`, and no request journal. */
export function wiremockCommand(urlPath: string, body: string): Command | { skipped: string } {
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).status !== 0)
    return { skipped: 'java -version failed: WireMock needs Java 11 or later' };
  const jar = tool('wiremock', 'wiremock@3.13.2', 'build/wiremock-standalone-3.13.2.jar');
  if (typeof jar !== 'string') return jar;
  const dir = path.join(TMP, 'wiremock');
  mkdirSync(path.join(dir, 'mappings'), { recursive: true });
  const response = { status: 200, headers: { 'Content-Type': 'application/json' }, body };
  const mapping = { request: { method: 'GET', urlPath }, response };
  writeFileSync(path.join(dir, 'mappings/price.json'), JSON.stringify(mapping));
  const flags = ['--port', '{port}', '--bind-address', '127.0.0.1', '--root-dir', dir];
  return { file: 'java', args: ['-jar', jar, ...flags, '--no-request-journal', '--disable-banner'] };
}
