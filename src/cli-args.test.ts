import { describe, expect, it } from 'vitest';
import { closestFlag, editDistance, readCommandArgs } from './cli-args.ts';
import { CliError } from './cli-error.ts';

function refusal(args: string[]): string {
  try {
    readCommandArgs('serve', args);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(args)} was accepted`);
}

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours between two words', () => {
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('port', 'port')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('closestFlag', () => {
  it('suggests the nearest known flag for a typo and nothing for a stranger', () => {
    expect(closestFlag('--prot', ['port', 'host'])).toBe('--port');
    expect(closestFlag('--hots=1', ['port', 'host'])).toBe('--host');
    expect(closestFlag('--verbose', ['port', 'host'])).toBeUndefined();
  });
});

describe('readCommandArgs', () => {
  it('says "did you mean" for a misspelt flag, in one line', () => {
    expect(refusal(['--prot', '1'])).toBe(
      "serve: unknown option '--prot' (did you mean --port?). Run 'npx energy-rental-kit serve --help' for the options.",
    );
  });

  it('takes a negative number as the value of the flag before it', () => {
    const { values } = readCommandArgs('serve', ['--port', '-1']);
    expect(values.port).toBe('-1');
  });

  it('names a flag left without its value, with no parseArgs wording and no double period', () => {
    const message = refusal(['--port', '--host', 'x']);
    expect(message).toBe(
      "serve: --port needs a value, as in --port VALUE. Run 'npx energy-rental-kit serve --help' for the options.",
    );
    expect(message).not.toMatch(/\.\.|ambiguous|<value>/);
  });

  it('refuses a value given to a switch and a stray argument', () => {
    expect(refusal(['--quiet=yes'])).toMatch(/^serve: --quiet is a switch and takes no value/);
    expect(refusal(['extra'])).toMatch(/^serve: unexpected argument 'extra'; serve takes options only\./);
  });
});
