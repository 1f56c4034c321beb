import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  scripts: Record<string, string>;
};

/** tsconfig.build.json's compiler options, as tsc reads them (its `extends` followed). */
function buildOptions(): ts.CompilerOptions {
  const file = new URL('tsconfig.build.json', root).pathname;
  const { config } = ts.readConfigFile(file, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, new URL('.', root).pathname, undefined, file).options;
}

describe('the build', () => {
  it('writes the declarations without a type check, since tsconfig.build.json has them written from annotations alone', () => {
    expect(manifest.scripts.build).toMatch(/tsc -p tsconfig\.build\.json --noCheck$/);
    expect(buildOptions()).toMatchObject({ isolatedDeclarations: true, declaration: true });
  });

  it('refuses an export whose type tsc would have to infer, naming it', () => {
    const { diagnostics } = ts.transpileDeclaration('export const LIMIT = 8 * 1024;\n', {
      fileName: 'limit.ts',
      compilerOptions: buildOptions(),
    });
    expect((diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([
      expect.stringMatching(/must have an explicit type annotation with --isolatedDeclarations/),
    ]);
    const annotated = ts.transpileDeclaration('export const LIMIT: number = 8 * 1024;\n', {
      fileName: 'limit.ts',
      compilerOptions: buildOptions(),
    });
    expect(annotated.diagnostics).toEqual([]);
    expect(annotated.outputText).toContain('export declare const LIMIT: number;');
  });
});
