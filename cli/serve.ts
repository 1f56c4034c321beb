/** `energy-rental-kit serve`: runs the simulator over HTTP. */
import { existsSync } from 'node:fs';
import { getConnInfo } from '@hono/node-server/conninfo';
import { SimulatorError } from '../mock/engine/index.ts';
import { API_PREFIX } from '../mock/http/api-operations.ts';
import { offeredIn } from '../mock/http/control-modes.ts';
import { isLoopback } from '../mock/http/control-guard.ts';
import { redactUrl } from '../mock/http/journal-redaction.ts';
import { createNodeFetch } from '../mock/node-fetch.ts';
import { createSimulatorServer } from '../mock/node-server.ts';
import { createSimulator, DEFAULT_UPSTREAM_MAX_BYTES, type ReplayOptions } from '../mock/simulator.ts';
import { BoundedFileError, DEFAULT_MAX_FILE_MB, fileLimit, regularFileStats } from '../src/bounded-file.ts';
import { CliError } from '../src/cli-error.ts';
import { createClosers } from './closers.ts';
import { createLogger, type Logger } from './logger.ts';
import { createLiveRecording, LIVE_CASE } from '../recording/live-recording.ts';
import { MAIN_KEY_ALIAS } from '../recording/recording.ts';
import { loadReplay } from '../recording/replay-target.ts';
import { lockStateFile } from './state-lock.ts';
import { loadState, removeLeftovers, startSaver, STATE_FIX } from './state-file.ts';
import { DEFAULT_LOG_MAX_MB, logFileOf, openStateLog, readStateLog, type StateLog } from './state-log.ts';

import { readScenario, type ServeFlag, type ServeOptions } from './serve-options.ts';

export { parseServeArgs, SERVE_HELP, type ServeOptions, type ServeSources } from './serve-options.ts';

/** Starts the simulator and resolves once it listens; returns a function that stops it. */
export async function serve(
  options: ServeOptions,
  logger?: Logger | ((line: string) => void),
): Promise<{ url: string; close: () => Promise<void> }> {
  // A plain function is a line sink for everything, handy in tests.
  const sink = typeof logger === 'function' ? { out: logger, err: logger } : {};
  const log =
    typeof logger === 'object'
      ? logger
      : createLogger({ format: options.log ?? 'pretty', quiet: options.quiet ?? false, ...sink });
  const source = (name: ServeFlag): string => options.sources?.[name] ?? `--${name}`;
  const limit = fileLimit(options.maxFileMb ?? DEFAULT_MAX_FILE_MB);
  // A state or recording path naming a device or a pipe is refused before anything is made beside it.
  for (const [name, fix] of [
    ['state', STATE_FIX],
    ['record', 'pass the path of a file to write the recording to'],
  ] as const) {
    const file = options[name];
    if (!file) continue;
    let stats;
    try {
      stats = regularFileStats(file, fix);
    } catch (error) {
      if (error instanceof BoundedFileError && error.rule === 'not-regular')
        throw new CliError(`${source(name)}: ${error.message}`);
      // Missing is fine (it is made), and what cannot be read is named by whatever reads it.
      continue;
    }
    // A hard link is a second name no real path reveals: the lock would not see it.
    if (name === 'state' && stats.nlink > 1)
      throw new CliError(
        `${source(name)}: '${file}' has ${stats.nlink} names (hard links); a save replaces it under this one only and a simulator on another name would not see the lock. Pass a file with one name (a symlink to it is fine).`,
      );
  }
  const scenario = options.config ? await readScenario(options.config, source('config'), limit) : undefined;
  // Whatever is held from here on is let go of in one place, on a failed start and on close alike.
  const closers = createClosers();
  try {
    // One process per state file (every name of it): taken before reading it, released on close or exit.
    if (options.state) {
      const release = lockStateFile(options.state);
      closers.push(release);
      process.once('exit', release);
      closers.push(() => void process.off('exit', release));
      // What crashed saves left is removed once the lock shows that no live process writes it.
      for (const gone of removeLeftovers(options.state))
        log.warn(`${source('state')}: removed ${gone}, left by a save that did not finish`);
    }
    const restore = options.state ? loadState(options.state, { limit, source: source('state') }) : undefined;
    const logFile = options.state ? logFileOf(options.state) : undefined;
    const effects = logFile
      ? readStateLog(logFile, {
          limit,
          after: restore?.logSeq ?? 0,
          warn: (line) => log.warn(line),
          source: source('state'),
        })
      : [];
    // A recording is read (or begun) before anything listens: a bad file stops the start.
    let replay: ReplayOptions | undefined;
    if (options.replay) {
      try {
        const { transport } = loadReplay(options.replay, limit, {
          apiKey: '',
          onMiss: (message) => log.warn(`replay: ${message}`),
          onWarning: (line) => log.warn(line),
        });
        replay = { fetch: (request) => transport(request, LIVE_CASE, LIVE_CASE), source: options.replay };
      } catch (error) {
        throw new CliError(`${source('replay')}: ${(error as Error).message}`);
      }
    }
    // Node's own http client (the global fetch decodes what it passes on), capped for --record too.
    const upstreamFetch = options.upstream
      ? createNodeFetch({ maxBodyBytes: options.upstreamMaxBytes ?? DEFAULT_UPSTREAM_MAX_BYTES })
      : undefined;
    if (upstreamFetch) closers.push(() => upstreamFetch.close());
    let live;
    if (options.record && options.upstream) {
      const mode = options.recordMode ?? 'new';
      // A second run onto the same file would end the first one's recording without a word.
      if (mode === 'new' && existsSync(options.record))
        throw new CliError(
          `${source('record')}: '${options.record}' is there already; add --record-append to continue the recording it holds, or --record-overwrite to replace it (or record to another file).`,
        );
      try {
        live = createLiveRecording(options.record, {
          upstream: options.upstream,
          allowSpend: options.allowSpend ?? false,
          maxOrders: options.maxOrders,
          mode,
          limit,
          onWarning: (line) => log.warn(line),
          onError: (error) =>
            log.error(`could not write ${source('record')} ${options.record}: ${error.message}`, {
              record: options.record,
            }),
        });
      } catch (error) {
        throw new CliError(
          `${source('record')}${mode === 'append' ? ' with --record-append' : ''}: ${(error as Error).message}`,
        );
      }
      // Pushed after the agents it wraps, so it is closed before them.
      closers.push(() => live!.close());
    }
    // Set once the log is open, before the server listens: no request is answered before.
    const kept: { log?: StateLog } = {};
    const loopback = isLoopback(options.host);
    const token = options.token || undefined;
    let simulator;
    try {
      simulator = createSimulator({
        seed: options.seed,
        clock: options.clock,
        timing: options.timing,
        scenario,
        restore,
        effects,
        control: { enabled: loopback || token !== undefined, token },
        remoteAddress: (c) => getConnInfo(c).remote.address,
        ...(options.upstream
          ? {
              proxy: {
                upstream: options.upstream,
                timeoutMs: options.upstreamTimeoutMs,
                maxBytes: options.upstreamMaxBytes,
                allowSpend: options.allowSpend,
                maxOrders: options.maxOrders,
                maxSpend: options.maxSpend,
                forwardUnknown: options.forwardUnknown,
                onViolation: (line: string) => log.warn(line),
                fetch: live ? live.wrap(upstreamFetch!) : upstreamFetch,
                // Recorded by its path below the node's URL, as the API's below the upstream's.
                tronNode: options.tronNode
                  ? {
                      url: options.tronNode,
                      fetch: live ? live.wrap(upstreamFetch!, options.tronNode) : upstreamFetch,
                    }
                  : undefined,
              },
            }
          : replay
            ? { replay }
            : {}),
        changeLog: logFile
          ? {
              get failures() {
                return kept.log?.failures ?? 0;
              },
              check: () => kept.log?.check(),
            }
          : undefined,
        onUnexpectedError: (error) =>
          log.error(`unexpected error: ${(error as Error)?.stack ?? String(error)}`, {
            error: String(error),
          }),
      });
    } catch (error) {
      if (error instanceof SimulatorError)
        throw new CliError(
          `${options.config ? `${source('config')} ${options.config}: ` : ''}${error.message}`,
        );
      // loadState checked the file's shape; whatever else fails while restoring it is damage inside.
      if (restore || effects.length > 0) {
        const what = effects.length > 0 ? ` with its log '${logFile}'` : '';
        throw new CliError(
          `${source('state')}: '${options.state}'${what} is refused, its parts do not agree: ${(error as Error).message}. Mend it or move it away to start afresh; it is left untouched.`,
        );
      }
      throw error;
    }
    // Every change is written before it takes effect; a full log asks the saver for a snapshot.
    const late: { saver?: ReturnType<typeof startSaver> } = {};
    const stateLog = logFile
      ? openStateLog(logFile, {
          stateFile: options.state!,
          limit,
          fsync: options.fsync ?? 'everysec',
          maxBytes: (options.logMaxMb ?? DEFAULT_LOG_MAX_MB) * 1024 * 1024,
          onFull: () => late.saver?.soon(),
          onError: (error) =>
            log.error(`could not append to the log ${logFile}: ${error.message}`, { state: options.state }),
        })
      : undefined;
    kept.log = stateLog;
    if (stateLog) {
      simulator.engine.writeAhead(stateLog);
      // Closed after the final save (closers run newest first).
      closers.push(() => {
        simulator.engine.writeAhead(undefined);
        stateLog.close();
      });
    }
    const saver = options.state
      ? startSaver(
          simulator.engine,
          options.state,
          options.saveIntervalMs ?? 1000,
          (error) =>
            log.error(`could not save ${source('state')} ${options.state}: ${error.message}`, {
              state: options.state,
            }),
          stateLog,
        )
      : undefined;
    if (saver) {
      late.saver = saver;
      closers.push((reason) => {
        saver.stop();
        // A start that failed saves nothing more; a close writes the final state.
        if (reason === 'failed') return;
        saver.saveNow();
        // A cancelled save under way removes its temporary file before the process may exit.
        return saver.settled();
      });
    }
    // Request lines are info: with --quiet nothing listens, so nothing is built per request.
    if (!options.quiet) simulator.journal.subscribe((entry) => log.request(entry));
    const server = createSimulatorServer(simulator, {
      host: options.host,
      allowedHosts: options.allowedHosts,
    });
    server.listen(options.port, options.host);
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', (error: NodeJS.ErrnoException) => {
        reject(
          error.code === 'EADDRINUSE'
            ? new CliError(
                `Port ${options.port} on ${options.host} is in use: pass --port (or ENERGY_SIM_PORT) with a free port, or 0 for any.`,
              )
            : error.code === 'EACCES'
              ? new CliError(
                  `${source('port')}: port ${options.port} needs privileges this process lacks (EACCES); pass a port from 1024 up, or 0 for any.`,
                )
              : error.code
                ? new CliError(
                    `${source('host')}: cannot listen on '${options.host}' (${error.code}); pass an address of this machine, such as 127.0.0.1 or 0.0.0.0.`,
                  )
                : error,
        );
      });
    });
    // Closed first: no request comes in once the final state is saved.
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Keep-alive connections would hold close() open; end them.
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
    );
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    const url = `http://${host}:${port}`;
    // The demo key is public by design; no other key is ever logged. Without one, the line says how to get one.
    const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
    const accounts = simulator.engine.accounts().length;
    const keyOf = (): { key: string; line: string } => {
      if (simulator.mode === 'proxy')
        return {
          key: '$API_KEY',
          line: `your key of ${redactUrl(options.upstream!)}, as the API-KEY header (passed on, never logged)`,
        };
      if (simulator.mode === 'replay')
        return {
          key: MAIN_KEY_ALIAS,
          line: `${MAIN_KEY_ALIAS}, the recording's alias of the key it was made with (the recording keeps no key)`,
        };
      if (simulator.engine.authenticate('demo-key')) return { key: 'demo-key', line: 'demo-key' };
      const create = `curl -s -X POST '${url}/_sim/accounts' -H 'content-type: application/json' -d '{"balance":{"trx":"100"}}'`;
      return {
        key: '$API_KEY',
        line:
          accounts === 0
            ? `none: the scenario has no account; create one with ${create} (its answer holds the key)`
            : `the apiKey of an account of ${options.config ?? 'the scenario'} (${plural(accounts, 'account', 'accounts')}, none with demo-key), or a new one: ${create}`,
      };
    };
    const { key, line: keyLine } = keyOf();
    // In front of a service, through this server's /api unless the upstream's own path ends with it.
    const base =
      options.upstream && !new URL(options.upstream).pathname.replace(/\/+$/, '').endsWith(API_PREFIX)
        ? API_PREFIX
        : '';
    const curl = `curl -s '${url}${base}/v1/tron/price?rentalCount=65000&period=1h' -H ${key.startsWith('$') ? `"API-KEY: ${key}"` : `'API-KEY: ${key}'`}`;
    const control = !loopback && !token ? 'off' : `${url}/_sim${token ? ' (token required)' : ''}`;
    const state = options.state
      ? `${options.state} (${restore || effects.length > 0 ? `restored ${plural(simulator.engine.storedOrders, 'order', 'orders')}, ${plural(accounts, 'account', 'accounts')}${effects.length > 0 ? `, ${plural(effects.length, 'change', 'changes')} from the log` : ''}` : 'new'}; every change appended to ${logFile} (fsync ${options.fsync ?? 'everysec'}), a snapshot every ${options.saveIntervalMs ?? 1000} ms and on shutdown)`
      : undefined;
    const limits = [
      options.maxOrders !== undefined && `at most ${options.maxOrders}`,
      options.maxSpend !== undefined && `within ${options.maxSpend} TRX`,
    ].filter(Boolean);
    const orders = !options.allowSpend
      ? 'refused: no --allow-spend'
      : limits.length > 0
        ? `forwarded, ${limits.join(' and ')}`
        : 'forwarded: they spend real TRX';
    const upstreamName = options.upstream ? redactUrl(options.upstream) : undefined;
    const proxy = options.upstream
      ? `${upstreamName} (${options.forwardUnknown ? 'GET and HEAD of other paths forwarded too' : 'only the API forwarded'}; answers checked against the spec)`
      : undefined;
    // The engine's clock, timing and seed answer nothing in front of a service or a recording.
    const engine =
      simulator.mode === 'simulator'
        ? {
            clock: simulator.clock.mode,
            timing: simulator.engine.settings().timing,
            seed: simulator.engine.seed,
          }
        : undefined;
    const lines = [`energy-rental-kit ${simulator.mode} listening on ${url}`];
    if (proxy) lines.push(`  upstream: ${proxy}`, `  spend guard: orders ${orders}`);
    if (options.upstream && options.tronNode)
      lines.push(
        `  TRON node: ${redactUrl(options.tronNode)} (its reads of spec/tron-node.yaml forwarded; a broadcast or any other node path refused)`,
      );
    if (options.record)
      lines.push(
        `  recording to: ${options.record} (each exchange appended as it ends${live?.continued ? `; continuing its ${plural(live.continued, 'interaction', 'interactions')}` : options.recordMode === 'overwrite' ? '; replaced' : ''})`,
      );
    if (options.replay)
      lines.push(
        `  answers from: ${options.replay} (the recorded answer of the same request, in recorded order)`,
      );
    if (engine) lines.push(`  clock ${engine.clock}, timing ${engine.timing}, seed ${engine.seed}`);
    else if (control !== 'off')
      lines.push(
        `  control plane in ${simulator.mode} mode: ${offeredIn(simulator.mode)}; the simulator's accounts, orders, rules, clock and settings are refused (409)`,
      );
    lines.push(`  API key: ${keyLine}`, `  try: ${curl}`);
    if (state) lines.push(`  state: ${state}`);
    lines.push(
      `  control plane: ${control === 'off' ? 'off (listening off loopback without --token)' : control}`,
      `  docs: ${url}/docs   dashboard: ${url}/_sim/ui`,
    );
    log.banner(lines, 'listening', {
      url,
      ...engine,
      apiKey: key,
      curl,
      controlPlane: control,
      mode: simulator.mode,
      ...(proxy ? { upstream: upstreamName, spendGuard: `orders ${orders}` } : {}),
      ...(options.record ? { record: options.record } : {}),
      ...(options.replay ? { replay: options.replay } : {}),
      ...(state ? { state } : {}),
    });
    return { url, close: () => closers.close('closed') };
  } catch (error) {
    // The start's own error is the one to report; one from letting go is only logged.
    await closers
      .close('failed')
      .catch((closeError: Error) =>
        log.error(`could not let go of what the failed start held: ${closeError.message}`),
      );
    throw error;
  }
}
