import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { findStaleArtifacts } from './generate.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

describe('generated models', () => {
  it('are up to date with spec/openapi.yaml and spec/control.yaml', async () => {
    const stale = await findStaleArtifacts();
    expect(stale, 'Run `npm run generate` and commit the result').toEqual([]);
  });

  it('make the typecheck fail in the client when a field it reads is removed from the document', async () => {
    const spec = parse(await readFile(path.join(root, 'spec/openapi.yaml'), 'utf8')) as OpenAPI3 & {
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    };
    const order = spec.components.schemas.Order!;
    delete order.properties!.status;
    order.required = order.required!.filter((name) => name !== 'status');

    // A scratch copy of src/ inside the repository, so that it resolves node_modules.
    const scratch = await mkdtemp(path.join(root, 'node_modules/.spec-removal-'));
    try {
      await cp(path.join(root, 'src'), path.join(scratch, 'src'), { recursive: true });
      await writeFile(
        path.join(scratch, 'src/generated/openapi.ts'),
        astToString(await openapiTS(spec, { silent: true })),
      );
      await writeFile(
        path.join(scratch, 'tsconfig.json'),
        JSON.stringify({
          extends: path.join(root, 'tsconfig.json'),
          include: ['src'],
          exclude: ['src/**/*.test.ts'],
        }),
      );
      const result = await run(process.execPath, [
        path.join(root, 'node_modules/typescript/bin/tsc'),
        '-p',
        scratch,
      ]).then(
        () => ({ failed: false, output: '' }),
        (error: { stdout: string }) => ({ failed: true, output: error.stdout }),
      );
      expect(result.failed).toBe(true);
      expect(result.output).toMatch(
        /src\/client\/wait-for-order\.ts.*Property 'status' does not exist on type/,
      );
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }, 60_000);
});
