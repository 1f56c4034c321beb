/**
 * The `energy-rental-kit` command line.
 */
import { readFileSync } from 'node:fs';
import { closestFlag } from '../src/cli-args.ts';
import { CliError } from '../src/cli-error.ts';
import { createLogger } from './logger.ts';
import { parseServeArgs, serve, SERVE_HELP } from './serve.ts';

export const MAIN_HELP = `Usage: energy-rental-kit <command> [options]

Commands:
  serve      Run the Energy Rental API simulator
  contract   Run the contract suite against the simulator or a URL
  record     Run the contract suite against a target and save a recording (--out FILE)
  drift      Compare two recordings, or a recording with the spec (OLD NEW, --spec NEW)
  calibrate  Learn the real service's choices from a recording, as a scenario (RECORDING --out FILE)
  coverage   Merge a test run's coverage files and print what was exercised (FILES… --require IDS)

In a project that has the kit installed, run a command as 'npx energy-rental-kit <command>'.
Run 'npx energy-rental-kit <command> --help' for one command's options; every command's
options follow. 'npx energy-rental-kit --version' prints the kit's version.
`;

const COMMANDS = ['serve', 'contract', 'record', 'drift', 'calibrate', 'coverage'] as const;

/**
 * The version of the installed kit, from its package.json: the nearest one above this
 * module that is the kit's (cli/ in a checkout, dist/cli/ in the package).
 *
 * @example
 *   kitVersion(); // '0.1.0'
 */
export function kitVersion(from: URL = new URL('.', import.meta.url)): string {
  for (let dir = from; ; dir = new URL('..', dir)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'energy-rental-kit' && manifest.version) return manifest.version;
    } catch {
      // No package.json here, or not readable: look one folder up.
    }
    if (new URL('..', dir).href === dir.href)
      throw new Error('the package.json of energy-rental-kit was not found');
  }
}

/** The whole help: the command list, then each command's usage with its flags. */
export async function fullHelp(): Promise<string> {
  // Loaded only for --help, so that serve starts without the other commands' modules.
  const [{ CONTRACT_HELP }, { RECORD_HELP }, { DRIFT_HELP }, { CALIBRATE_HELP }, { COVERAGE_HELP }] =
    await Promise.all([
      import('../contract-tests/contract-command.ts'),
      import('../drift/record-command.ts'),
      import('../drift/drift-command.ts'),
      import('../drift/calibrate-command.ts'),
      import('./coverage-command.ts'),
    ]);
  const rule = `\n${'─'.repeat(78)}\n\n`;
  return [MAIN_HELP, SERVE_HELP, CONTRACT_HELP, RECORD_HELP, DRIFT_HELP, CALIBRATE_HELP, COVERAGE_HELP].join(
    rule,
  );
}

/** Runs the CLI; resolves with the exit code for commands that end. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | 'running'> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(MAIN_HELP);
    return 2;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(await fullHelp());
    return 0;
  }
  if (command === '--version' || command === 'version') {
    process.stdout.write(`${kitVersion()}\n`);
    return 0;
  }
  switch (command) {
    case 'serve': {
      const options = parseServeArgs(rest, env);
      if (options === 'help') {
        process.stdout.write(SERVE_HELP);
        return 0;
      }
      const log = createLogger({ format: options.log ?? 'pretty', quiet: options.quiet ?? false });
      const running = await serve(options, log);
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) return;
        stopping = true;
        log.info(`${signal} received, shutting down`, { signal });
        void running.close().then(() => process.exit(0));
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
      return 'running';
    }
    case 'contract': {
      const { runContract } = await import('../contract-tests/contract-command.ts');
      return runContract(rest, env);
    }
    case 'record': {
      const { runRecord } = await import('../drift/record-command.ts');
      return runRecord(rest, env);
    }
    case 'drift': {
      const { runDrift } = await import('../drift/drift-command.ts');
      return runDrift(rest, { env });
    }
    case 'calibrate': {
      const { runCalibrate } = await import('../drift/calibrate-command.ts');
      return runCalibrate(rest, { env });
    }
    case 'coverage': {
      const { runCoverage } = await import('./coverage-command.ts');
      return runCoverage(rest, { env });
    }
    default: {
      const near = closestFlag(command, COMMANDS)?.slice(2);
      throw new CliError(
        `Unknown command '${command}'${near ? ` (did you mean ${near}?)` : ''}. Run 'npx energy-rental-kit --help' for the commands.`,
      );
    }
  }
}

export async function run(argv: string[]): Promise<void> {
  try {
    const code = await main(argv);
    if (code !== 'running') process.exitCode = code;
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`energy-rental-kit: ${error.message}`);
      process.exitCode = 2;
    } else {
      console.error(error);
      process.exitCode = 1;
    }
  }
}
