import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  scripts: Record<string, string>;
};
const scratch = mkdtempSync(path.join(os.tmpdir(), 'build-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** tsconfig.build.json's compiler options, as tsc reads them (its `extends` followed). */
function buildOptions(): ts.CompilerOptions {
  const file = new URL('tsconfig.build.json', root).pathname;
  const { config } = ts.readConfigFile(file, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, new URL('.', root).pathname, undefined, file).options;
}

/**
 * One file built as `npm run build` builds (the build's options, --noCheck), with no lib
 * (a file of one constant needs none, and the lib would be most of the time): the
 * diagnostics and the declaration written.
 */
function build(name: string, code: string): { diagnostics: string[]; declaration: string | undefined } {
  const source = path.join(scratch, `${name}.ts`);
  writeFileSync(source, code);
  const program = ts.createProgram([source], {
    ...buildOptions(),
    noCheck: true,
    noLib: true,
    types: [],
    rootDir: scratch,
    outDir: path.join(scratch, 'out'),
  });
  let declaration: string | undefined;
  const emitted = program.emit(
    undefined,
    (written, text) => {
      if (written.endsWith('.d.ts')) declaration = text;
    },
    undefined,
    true,
  );
  return {
    diagnostics: emitted.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    declaration,
  };
}

describe('the build', () => {
  it('writes the declarations without a type check, since tsconfig.build.json has them written from annotations alone', () => {
    expect(manifest.scripts.build).toMatch(/tsc -p tsconfig\.build\.json --noCheck$/);
    expect(buildOptions()).toMatchObject({ isolatedDeclarations: true, declaration: true });
  });

  it('refuses, under its own options, an export whose type tsc would have to infer, naming it, and writes no declaration for it', () => {
    const inferred = build('inferred', 'export const LIMIT = 8 * 1024;\n');
    expect(inferred.diagnostics).toEqual([
      expect.stringMatching(/must have an explicit type annotation with --isolatedDeclarations/),
    ]);
    expect(inferred.declaration).toBeUndefined();
    const annotated = build('annotated', 'export const LIMIT: number = 8 * 1024;\n');
    expect(annotated.diagnostics).toEqual([]);
    expect(annotated.declaration).toContain('export declare const LIMIT: number;');
  });
});
