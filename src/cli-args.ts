/** Command flags by their spec/cli.yaml table, read with parseArgs; a mistake: one line, with the fix. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './cli-error.ts';
import type { CliOption } from './cli-help.ts';
import { CLI_COMMANDS } from './generated/cli.ts';

export type CommandName = keyof typeof CLI_COMMANDS;
type OptionsOf<C extends CommandName> = (typeof CLI_COMMANDS)[C]['options'];
/** The values of a table's options as read: a switch's a boolean, a repeatable flag's a list. */
type ValuesOf<T> = {
  -readonly [K in keyof T]?: T[K] extends { type: 'boolean' }
    ? boolean
    : T[K] extends { multiple: true }
      ? string[]
      : string;
};

/**
 * Reads a command's arguments by its table, naming the flag and the fix on a mistake.
 *
 * @example
 *   const { values } = readCommandArgs('drift', ['old.json', 'new.json', '--format', 'json'], true);
 *   values.format; // 'json'
 */
export function readCommandArgs<C extends CommandName>(
  command: C,
  args: string[],
  allowPositionals = false,
): { values: ValuesOf<OptionsOf<C>>; positionals: string[] } {
  const table = Object.entries(CLI_COMMANDS[command].options as Record<string, CliOption>);
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of table)
    options[name] = {
      type: o.type,
      ...(o.short ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    };
  const spellings = new Set(table.flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]));
  // '--port -1' is the value -1, not a flag: joined, it reaches the rule of --port.
  const joined = [...args];
  for (let i = 0; i < joined.length - 1; i++) {
    const name = joined[i]!.startsWith('--') ? joined[i]!.slice(2) : undefined;
    const next = joined[i + 1]!;
    if (name && options[name]?.type === 'string' && /^-[^-]/.test(next) && !spellings.has(next))
      joined.splice(i, 2, `--${name}=${next}`);
  }
  const help = `Run 'npx energy-rental-kit ${command} --help' for the options.`;
  try {
    const { values, positionals } = parseArgs({ args: joined, options, strict: true, allowPositionals });
    return { values: values as ValuesOf<OptionsOf<C>>, positionals };
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const flag = (/'([^']+)'/.exec(message)?.[1] ?? '').split(' ')[0]!;
    switch (code) {
      case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
        const near = closestFlag(flag, Object.keys(options));
        throw new CliError(
          `${command}: unknown option '${flag}'${near ? ` (did you mean ${near}?)` : ''}. ${help}`,
        );
      }
      case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
        throw new CliError(
          options[flag.replace(/^-+/, '')]?.type === 'boolean' || message.includes('does not take')
            ? `${command}: ${flag} is a switch and takes no value; give it alone. ${help}`
            : `${command}: ${flag} needs a value, as in ${flag} VALUE. ${help}`,
        );
      case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
        throw new CliError(
          `${command}: unexpected argument '${flag}'; ${command} takes options only. ${help}`,
        );
      default:
        throw new CliError(`${command}: ${message.replace(/\.?\s*$/, '')}. ${help}`);
    }
  }
}

/**
 * The edit distance with a swap of neighbours as one edit, so '--prot' is one typo from '--port'.
 *
 * @example
 *   editDistance('prot', 'port'); // 1
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known flag nearest to a misspelt one, when it is near enough to be a typo.
 *
 * @example
 *   closestFlag('--prot', ['port', 'host']); // '--port'
 */
export function closestFlag(given: string, known: readonly string[]): string | undefined {
  const name = given.replace(/^-+/, '').split('=')[0]!;
  let best: { flag: string; distance: number } | undefined;
  for (const flag of known) {
    const distance = editDistance(name, flag);
    if (!best || distance < best.distance) best = { flag, distance };
  }
  // A third of the name, at least one and at most two edits: further is a different flag.
  const allowed = Math.min(2, Math.max(1, Math.floor(name.length / 3)));
  return best && best.distance <= allowed ? `--${best.flag}` : undefined;
}
