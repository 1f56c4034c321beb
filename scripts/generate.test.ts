import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { findStaleArtifacts, generateArtifacts } from './generate.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

describe('generated models', () => {
  it('are up to date with spec/openapi.yaml, spec/control.yaml and spec/cli.yaml, docs/options.md included', async () => {
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
          // The file that reads the field and what it imports: half the time of all of src/.
          include: ['src/client/wait-for-order.ts'],
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

type Document = OpenAPI3 & { paths: Record<string, any>; components: { schemas: Record<string, any> } };
const readDocument = async (file: string): Promise<Document> =>
  parse(await readFile(path.join(root, file), 'utf8')) as Document;

/** Generates from changed copies of the documents and imports the lists module that comes out. */
async function regeneratedLists(
  change: (docs: { api: Document; control: Document }) => void,
): Promise<typeof import('../src/generated/lists.ts')> {
  const docs = {
    api: await readDocument('spec/openapi.yaml'),
    control: await readDocument('spec/control.yaml'),
  };
  change(docs);
  const lists = (await generateArtifacts(docs)).get('src/generated/lists.ts')!;
  // Inside the repository (.scratch/ is ignored), so the module is transformed like any other.
  await mkdir(path.join(root, '.scratch'), { recursive: true });
  const scratch = await mkdtemp(path.join(root, '.scratch/lists-'));
  try {
    await writeFile(path.join(scratch, 'lists.ts'), lists);
    return (await import(path.join(scratch, 'lists.ts'))) as typeof import('../src/generated/lists.ts');
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

describe('generated lists', () => {
  it('take up a period added to a copy of the API document', async () => {
    const lists = await regeneratedLists(({ api }) => api.components.schemas.Period.enum.push('60d'));
    expect(lists.PERIODS).toEqual(['10min', '1h', '1d', '3d', '7d', '14d', '30d', '60d']);
    expect(lists.API_OPERATION_SPECS.getPrice.parameters.period.enum).toContain('60d');
  });

  it('take up an operation added to a copy of the API document, with its required parameters', async () => {
    const lists = await regeneratedLists(({ api }) => {
      api.paths['/v1/tron/ping'] = {
        get: {
          operationId: 'ping',
          parameters: [{ name: 'echo', in: 'query', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'Pong.',
              content: { 'application/json': { example: { code: 0, msg: 'pong', data: {} } } },
            },
          },
        },
      };
    });
    expect(lists.API_OPERATION_IDS).toContain('ping');
    expect(lists.API_PATHS).toContain('/v1/tron/ping');
    expect((lists.API_OPERATION_SPECS as Record<string, unknown>).ping).toEqual({
      operationId: 'ping',
      method: 'GET',
      path: '/v1/tron/ping',
      parameters: { echo: { type: 'string' } },
      required: ['echo'],
      requiredOneOf: [],
      successMessage: 'pong',
    });
  });

  it('refuse an operation whose success answer has no example message, naming the operation', async () => {
    await expect(
      regeneratedLists(({ api }) => {
        api.paths['/v1/tron/ping'] = {
          get: { operationId: 'ping', responses: { '200': { description: 'Pong.' } } },
        };
      }),
    ).rejects.toThrow(/'ping' has no example of its 200 answer with a msg/);
  });

  it("take up a setting's changed maximum and a new rejection kind of a copy of the control document", async () => {
    const lists = await regeneratedLists(({ control }) => {
      control.components.schemas.MaxStoredOrders.maximum = 42;
      control.components.schemas.ErrorCatalogue.properties.teapot = {
        $ref: '#/components/schemas/ErrorAnswer',
      };
    });
    expect(lists.ENGINE_SETTINGS.maxStoredOrders.maximum).toBe(42);
    expect(lists.REJECTION_KINDS).toContain('teapot');
  });
});
