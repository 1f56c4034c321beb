import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildBundle, freshBundle, staleness } from './cli-bundle.mjs';

// A project of two files stands in for the checkout: the rules are the same, the build
// a tenth of the time. Each test gets a project of its own, so each runs alone too.
let root: string;
const options = (): { root: string } => ({ root });
const word = (): string => path.join(root, 'cli/word.ts');
let imports = 0;
async function runBundle(bundle: string): Promise<string> {
  const module = (await import(`${pathToFileURL(bundle).href}?${++imports}`)) as { run(): string };
  return module.run();
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'erk-bundle-'));
  await mkdir(path.join(root, 'cli'), { recursive: true });
  await writeFile(
    path.join(root, 'cli/main.ts'),
    "import { word } from './word.ts';\nexport function run(): string {\n  return word;\n}\n",
  );
  await writeFile(word(), "export const word: string = 'one';\n");
  await writeFile(path.join(root, 'package.json'), '{ "type": "module" }\n');
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('the CLI bundle (scripts/cli-bundle.mjs)', () => {
  it('is not used before it is built', () => {
    expect(staleness(options())).toBe('not built');
    expect(freshBundle(options())).toBeUndefined();
  });

  it('is fresh once built, and runs the sources as they were', async () => {
    const { bundle } = await buildBundle(options());
    expect(staleness(options())).toBeUndefined();
    expect(freshBundle(options())).toBe(bundle);
    expect(await runBundle(bundle)).toBe('one');
  });

  it('stays fresh when a file is only touched: its content is hashed', async () => {
    await buildBundle(options());
    const later = new Date(Date.now() + 60_000);
    await utimes(word(), later, later);
    expect(staleness(options())).toBeUndefined();
  });

  it('is stale after an edit, even one that keeps the size, until it is built again', async () => {
    await buildBundle(options());
    const before = await readFile(word(), 'utf8');
    await writeFile(word(), before.replace("'one'", "'two'"));
    expect(staleness(options())).toBe('cli/word.ts changed');
    expect(freshBundle(options())).toBeUndefined();
    const { bundle } = await buildBundle(options());
    expect(await runBundle(bundle)).toBe('two');
  });

  it('is stale when a file that steers the build appears or changes', async () => {
    await buildBundle(options());
    expect(staleness(options())).toBeUndefined();
    await writeFile(path.join(root, 'tsconfig.json'), '{}\n');
    expect(staleness(options())).toBe('tsconfig.json changed');
    await buildBundle(options());
    await writeFile(path.join(root, 'package.json'), '{ "type": "module", "name": "x" }\n');
    expect(staleness(options())).toBe('package.json changed');
  });

  it("keeps the tests' bundle of every command but the suite's apart from the serve bundle, each fresh on its own", async () => {
    const all = { root, commands: 'all-but-suite' } as const;
    const { bundle } = await buildBundle(all);
    expect(path.basename(bundle)).toBe('cli-all-but-suite.mjs');
    expect(staleness(all)).toBeUndefined();
    expect(staleness(options())).toBe('not built');
    expect(await runBundle(bundle)).toBe('one');
    // A bundle built for the other set of commands, in its place, is not taken for it.
    const { bundle: serveBundle } = await buildBundle(options());
    await writeFile(bundle, await readFile(serveBundle));
    expect(staleness(all)).toBe('built for serve commands');
  });

  it('is stale when its stamp is damaged', async () => {
    const { bundle } = await buildBundle(options());
    const text = await readFile(bundle, 'utf8');
    await writeFile(bundle, text.slice(0, -10));
    expect(staleness(options())).toMatch(/^unreadable stamp/);
    await writeFile(bundle, text.replace(/\/\/ energy-rental-kit bundle stamp: .*\n$/, ''));
    expect(staleness(options())).toBe('no stamp');
  });
});
