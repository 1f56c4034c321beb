/** What spec/cli.yaml says of each command, shown: its --help and the tables of docs/options.md. */
import { ENV_FLAG_VALUES } from './env-flag.ts';

/** One option of a command's table (spec/cli.yaml): a switch, or a flag with a value. */
export interface CliOption {
  readonly type: 'string' | 'boolean';
  /** The value's name in help and docs: `--port N`. */
  readonly value?: string;
  /** The variable behind the flag; the flag wins. */
  readonly env?: string;
  /** The default as help and docs name it. */
  readonly default?: string;
  readonly help: string;
  readonly short?: string;
  readonly multiple?: boolean;
  /** Starts a heading of its own in help and docs. */
  readonly group?: string;
}

/** A command of spec/cli.yaml: its line in the list of commands, its help and its table. */
export interface CliCommand {
  readonly summary: string;
  readonly usage: readonly string[];
  readonly about: string;
  readonly options: Readonly<Record<string, CliOption>>;
  readonly after?: string;
}

/** The flag with its value's name, as help and docs show it: `--port N`. */
function flagOf(name: string, option: CliOption): string {
  return `${option.short ? `-${option.short}, ` : ''}--${name}${option.value ? ` ${option.value}` : ''}`;
}

/** Words laid out from column `indent` to 80, the first line after `first`. */
function wrap(first: string, text: string, indent: number): string[] {
  const lines: string[] = [];
  let line = first && first.length + 2 > indent ? `${first}  ` : first.padEnd(indent);
  let words = 0;
  for (const word of text.split(' ')) {
    if (words > 0 && line.length + word.length > 80) {
      lines.push(line.trimEnd());
      line = ' '.repeat(indent);
    }
    line += `${word} `;
    words++;
  }
  lines.push(line.trimEnd());
  return lines;
}

/**
 * A command's --help.
 *
 * @example
 *   commandHelp(CLI_COMMANDS.serve); // 'Usage: energy-rental-kit serve [options]\n\nRuns the …'
 */
export function commandHelp({ usage, about, options, after }: CliCommand): string {
  const lines = usage.map((u, i) => `${i === 0 ? 'Usage: ' : '       '}energy-rental-kit ${u}`);
  const table = Object.entries(options);
  const eachHasEnv = table.every(([name, o]) => o.env || name === 'help');
  lines.push(
    '',
    about.trimEnd(),
    '',
    `Options${eachHasEnv ? ' (each has an environment variable; the flag wins)' : ''}:`,
  );
  for (const [name, o] of table) {
    if (o.group) lines.push('', `${o.group}:`);
    const notes = [o.env && (o.value ? o.env : `${o.env}=1`), o.default && `default ${o.default}`].filter(
      Boolean,
    );
    lines.push(
      ...wrap(`  ${flagOf(name, o)}`, notes.length ? `${o.help} (${notes.join(', ')})` : o.help, 24),
    );
  }
  const switches = table.filter(([, o]) => o.env && !o.value).map(([name]) => `--${name}`);
  if (switches.length > 0)
    lines.push(
      '',
      ...wrap(
        '',
        `The variable of a switch (${switches.join(', ')}) takes ${ENV_FLAG_VALUES}, in any case; any other value stops the command.`,
        0,
      ),
    );
  if (after) lines.push('', after.trimEnd());
  return `${lines.join('\n')}\n`;
}

/**
 * The tables of docs/options.md, one per command (--help left out).
 *
 * @example
 *   optionsMarkdown({ serve: commands.serve }); // '## `serve`\n\n…| `--port N` | `ENERGY_SIM_PORT` | 8787 | …'
 */
export function optionsMarkdown(commands: Readonly<Record<string, CliCommand>>): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const head = ['| flag | env | default | |', '|---|---|---|---|'];
  const out: string[] = [];
  for (const [command, { summary, usage, options }] of Object.entries(commands)) {
    out.push(
      `## \`${command}\``,
      '',
      `${summary}: ${usage.map((u) => `\`energy-rental-kit ${u}\``).join(', ')}.`,
      '',
      ...head,
    );
    for (const [name, o] of Object.entries(options)) {
      if (name === 'help') continue;
      if (o.group) out.push('', `${o.group}:`, '', ...head);
      const env = o.env ? `\`${o.env}${o.value ? '' : '=1'}\`` : '';
      out.push(
        `| \`${cell(flagOf(name, o))}\` | ${env} | ${cell(o.default ?? (o.value ? 'none' : 'off'))} | ${cell(o.help)} |`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}
