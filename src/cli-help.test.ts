import { describe, expect, it } from 'vitest';
import { commandHelp, optionsMarkdown, type CliCommand } from './cli-help.ts';

const COMMAND: CliCommand = {
  summary: 'Serve a thing',
  usage: ['thing [options]'],
  about: 'Serves a thing.\n',
  options: {
    port: { type: 'string', value: 'N', env: 'THING_PORT', default: '8787', help: 'Port to listen on' },
    clock: { type: 'string', value: 'real|manual', env: 'THING_CLOCK', help: 'Which clock' },
    quiet: { type: 'boolean', env: 'THING_QUIET', help: 'Log less' },
    help: { type: 'boolean', short: 'h', help: 'Show this help' },
    far: {
      type: 'string',
      value: 'URL',
      group: 'Elsewhere',
      help: 'A flag whose help is long enough to be laid out on more than one line of the terminal, each within its width',
    },
  },
};

describe('commandHelp', () => {
  it("names each flag's value, variable and default, its groups, and how a switch's variable reads", () => {
    const help = commandHelp(COMMAND);
    expect(help).toMatch(/^Usage: energy-rental-kit thing \[options\]\n\nServes a thing\.\n\nOptions:\n/);
    expect(help).toContain('  --port N              Port to listen on (THING_PORT, default 8787)\n');
    expect(help).toContain('  --quiet               Log less (THING_QUIET=1)\n');
    expect(help).toContain('  -h, --help            Show this help\n\nElsewhere:\n  --far URL ');
    expect(help).toMatch(/The variable of a switch \(--quiet\) takes 1, true, yes/);
    for (const line of help.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });
});

describe('optionsMarkdown', () => {
  it('gives a row per option but help, a table per group, and escapes the bars of a value', () => {
    const markdown = optionsMarkdown({ thing: COMMAND });
    expect(markdown).toContain('| `--port N` | `THING_PORT` | 8787 | Port to listen on |');
    expect(markdown).toContain('| `--clock real\\|manual` | `THING_CLOCK` | none | Which clock |');
    expect(markdown).toContain('| `--quiet` | `THING_QUIET=1` | off | Log less |');
    expect(markdown).toMatch(
      /Elsewhere:\n\n\| flag \| env \| default \| \|\n\|---\|---\|---\|---\|\n\| `--far URL` \| {2}\| none \|/,
    );
    expect(markdown).not.toContain('--help');
  });
});
