/** The `energy-rental-kit` command line. */
import { readFileSync } from 'node:fs';
import { closestFlag, type CommandName } from '../src/cli-args.ts';
import { CliError } from '../src/cli-error.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';
import { createLogger } from './logger.ts';
import { parseServeArgs, serve, SERVE_HELP } from './serve.ts';

const COMMANDS = Object.keys(CLI_COMMANDS) as CommandName[];

/** The commands, one line each; `COMMAND --help` gives a command's options. */
export const MAIN_HELP: string = `Usage: energy-rental-kit <command> [options]

${COMMANDS.map((name) => `  ${name.padEnd(11)}${CLI_COMMANDS[name].summary}`).join('\n')}

Run 'npx energy-rental-kit <command> --help' for a command's options, and
'npx energy-rental-kit --version' for the kit's version.
`;

/** The kit's version, from the nearest package.json above that is the kit's: `kitVersion(); // '0.1.0'`. */
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

/** The commands that end, each loaded when run, so that serve starts without their modules. */
const RUNNERS: Record<
  Exclude<CommandName, 'serve'>,
  (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>
> = {
  contract: async (argv, env) =>
    (await import('../contract-tests/contract-command.ts')).runContract(argv, env),
  record: async (argv, env) => (await import('../drift/record-command.ts')).runRecord(argv, env),
  drift: async (argv, env) => (await import('../drift/drift-command.ts')).runDrift(argv, { env }),
  calibrate: async (argv, env) => (await import('../drift/calibrate-command.ts')).runCalibrate(argv, { env }),
  coverage: async (argv, env) => (await import('./coverage-command.ts')).runCoverage(argv, { env }),
};

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
    process.stdout.write(MAIN_HELP);
    return 0;
  }
  if (command === '--version' || command === 'version') {
    process.stdout.write(`${kitVersion()}\n`);
    return 0;
  }
  if (command === 'serve') {
    const options = parseServeArgs(rest, env);
    if (options === 'help') {
      process.stdout.write(SERVE_HELP);
      return 0;
    }
    const log = createLogger({ format: options.log ?? 'pretty', quiet: options.quiet ?? false });
    // Listened for before the banner goes out; one during the start closes the server once started.
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) return;
      stopping = true;
      log.info(`${signal} received, shutting down`, { signal });
      void running.then(
        (server) => server.close().then(() => process.exit(0)),
        () => undefined, // A failed start is reported by the caller.
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const running = serve(options, log);
    try {
      await running;
    } catch (error) {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      throw error;
    }
    return 'running';
  }
  if (Object.hasOwn(RUNNERS, command)) return RUNNERS[command as keyof typeof RUNNERS](rest, env);
  const near = closestFlag(command, COMMANDS)?.slice(2);
  throw new CliError(
    `Unknown command '${command}'${near ? ` (did you mean ${near}?)` : ''}. Run 'npx energy-rental-kit --help' for the commands.`,
  );
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
