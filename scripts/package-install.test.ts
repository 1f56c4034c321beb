/**
 * The package as its users get it: `npm pack`, installed into a fresh project, every
 * command run from there as a user types it. Once in the README's project (the kit and
 * nothing else, installed as the README says), once beside the user's vitest 4 with a
 * config of theirs that the kit must not read.
 * Dependencies come from the npm cache (or the registry when the cache lacks one).
 *
 * Once packed, the checkout's run and the two projects share only the tarball and npm's
 * cache (made to be shared), so their suites run at the same time, their waits on npm,
 * vitest and the server overlapping; the cases of one project stay in order, as they
 * share its directory and its contract-report.json.
 *
 * The pack is made from a copy of the working tree (stageCheckout), so this file leaves the
 * checkout's dist/ and package.json alone and runs beside the other test files instead of
 * after them.
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serve as serveFetch } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberFetch } from '../contract-tests/stand-ins/family.ts';
import { openDashboard, useBrowser, WAIT_MS } from '../mock/test-support/dashboard-e2e-test-support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Hang guards, not bounds on time: six busy loops on two cores stretch a pack or an install
// many-fold, and the gate must pass there too.
const GUARD = 20 * 60_000;
useBrowser();

interface Run {
  code: number | null;
  out: string;
}

/**
 * The environment of a user's shell: none of vitest's variables, and none of the npm_*
 * ones `npm test` sets (npm_config_local_prefix would point a child npm at this checkout).
 */
function userEnv(): NodeJS.ProcessEnv {
  const keep = new Set([
    'npm_config_cache',
    'npm_config_registry',
    'npm_config_userconfig',
    'npm_config_globalconfig',
  ]);
  const env: NodeJS.ProcessEnv = { CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|npm_|INIT_CWD$|NODE_ENV$|TEST$)/i.test(key) && !keep.has(key.toLowerCase())) continue;
    env[key] ??= value;
  }
  return env;
}

/** Runs a command to its end with its output captured; never throws on a non-zero exit. */
function run(command: string, args: string[], cwd: string, timeoutMs = GUARD): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const npm = (args: string[], cwd: string): Promise<Run> =>
  run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], cwd);

/** The kit as a user types it: `npx energy-rental-kit …` in their project. */
const kit = (project: string, ...args: string[]): Promise<Run> =>
  run('npx', ['energy-rental-kit', ...args], project);

/**
 * The bin `npx energy-rental-kit` finds, run without npx: once npx has been seen to find it
 * in a project, npx adds nothing to a command but its own start (a third of a second of CPU).
 */
const bin = (project: string, ...args: string[]): Promise<Run> =>
  run(path.join(project, 'node_modules/.bin/energy-rental-kit'), args, project);

/** Starts `energy-rental-kit serve --port 0` in the project; resolves with its URL from the banner. */
async function serve(project: string): Promise<{ url: string; stop(): Promise<number | null> }> {
  // The bin itself rather than npx, so SIGTERM reaches the server and not a wrapper.
  const server = spawn(path.join(project, 'node_modules/.bin/energy-rental-kit'), ['serve', '--port', '0'], {
    cwd: project,
    env: userEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within the guard: ${out}`)), GUARD);
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    server.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    server.once('exit', () => reject(new Error(`serve exited before its banner: ${out}`)));
  });
  return {
    url,
    stop: () => {
      server.kill('SIGTERM');
      return exited;
    },
  };
}

/** What the copy of the checkout leaves out: what npm ci, a build, git or a test run makes. */
const NOT_STAGED = new Set([
  'node_modules',
  'dist',
  '.git',
  'coverage',
  'test-artifacts',
  '.scratch',
  '.state',
]);

/**
 * A copy of the checkout's working tree as it is now (edits not yet committed included),
 * to pack instead of the checkout: `npm pack` empties and rebuilds dist/ and rewrites
 * package.json while it runs, which the other test files, running beside this one, must
 * not see. Its node_modules links to each of the checkout's installed packages; the CLI
 * bundle's cache is left out, so the copy's `prepare` builds a bundle of its own there
 * rather than writing over the checkout's.
 */
function stageCheckout(): string {
  const stage = mkdtempSync(path.join(tmpdir(), 'erk-stage-'));
  for (const entry of readdirSync(ROOT))
    if (!NOT_STAGED.has(entry)) cpSync(path.join(ROOT, entry), path.join(stage, entry), { recursive: true });
  mkdirSync(path.join(stage, 'node_modules'));
  for (const entry of readdirSync(path.join(ROOT, 'node_modules')))
    if (entry !== '.cache')
      symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(stage, 'node_modules', entry));
  return stage;
}

let stage: string;
let packDir: string;
let tarball: string;
const manifestBefore = readFileSync(path.join(ROOT, 'package.json'), 'utf8');

beforeAll(async () => {
  stage = stageCheckout();
  packDir = mkdtempSync(path.join(tmpdir(), 'erk-pack-'));
  const packed = await npm(['pack', '--pack-destination', packDir], stage);
  expect(packed.code, packed.out).toBe(0);
  tarball = path.join(
    packDir,
    readdirSync(packDir).find((f) => f.endsWith('.tgz'))!,
  );
}, GUARD);
// Every removal here is fs/promises' rm, on libuv's threads: the README walk's stand-in
// answers from this process's event loop, and rmSync of the user project's 118 MB tree held
// it 1.8 s on an idle machine and, in CI, past the suite's 10 s deadline for one request.
afterAll(async () => {
  await Promise.all([
    rm(packDir, { recursive: true, force: true }),
    rm(stage, { recursive: true, force: true }),
  ]);
});

describe('the packed tarball', () => {
  it('ships the built kit, its suite and its documents, and no tests, bench, fixtures, sources or maps', async () => {
    const listed = await run('tar', ['-tzf', tarball], packDir);
    const files = listed.out
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    expect(files).toContain('dist/contract-tests/contract.vitest.config.js');
    expect(files).toContain('dist/mock/msw/simulator-handlers.js');
    expect(files).toContain('bin/energy-rental-kit.js');
    // The two files of Swagger UI that /docs needs, copied by the build instead of a dependency.
    expect(files).toEqual(
      expect.arrayContaining(['dist/swagger-ui/swagger-ui-bundle.js', 'dist/swagger-ui/swagger-ui.css']),
    );
    // The suite is the product: its compiled files are the only *.test.* shipped.
    const suite = readdirSync(path.join(ROOT, 'contract-tests')).filter((f) =>
      f.endsWith('.contract.test.ts'),
    );
    expect(files.filter((f) => f.endsWith('.contract.test.js')).length).toBe(suite.length);
    // The dashboard's page, styles and scripts are served as they are, with no build step:
    // every one of them ships.
    const statics = readdirSync(path.join(ROOT, 'mock/http/dashboard/static'));
    expect(statics).toContain('index.html');
    for (const name of statics) expect(files).toContain(`mock/http/dashboard/static/${name}`);
    const unwanted = files.filter(
      (f) =>
        (!f.startsWith('mock/http/dashboard/static/') &&
          /^(bench|fixtures|scripts|src|mock|drift|contract-tests|test-artifacts)\//.test(f)) ||
        // The documentation pages ship (the README links them); their screenshots stay behind.
        (f.startsWith('docs/') && !/^docs\/[^/]+\.md$/.test(f)) ||
        /(?<!\.contract)\.test\.(js|d\.ts)$/.test(f) ||
        /test-support/.test(f) ||
        f.endsWith('.map') ||
        (f.endsWith('.ts') && !f.endsWith('.d.ts')),
    );
    expect(unwanted).toEqual([]);
    // Swagger UI's two files are about 0.48 MB of it, compressed.
    expect(statSync(tarball).size).toBeLessThan(1.5 * 1024 * 1024);
  });

  it(
    'passes Are the Types Wrong (ESM only) and publint --strict as packed',
    // Two seconds alone; over 20 beside the installs and the rest of `npm test` on a slow machine.
    { timeout: GUARD },
    async () => {
      // The tarball this file packed anyway: `npm test` packs once, not once more to lint.
      const linted = await run(
        process.execPath,
        [path.join(ROOT, 'scripts/lint-package.mjs'), tarball],
        packDir,
      );
      expect(linted.code, linted.out).toBe(0);
      expect(linted.out).toMatch(/All good!/);
    },
  );

  it("has a package.json without scripts, and leaves the checkout's as it was", async () => {
    const manifest = await run('tar', ['-xzOf', tarball, 'package/package.json'], packDir);
    const published = JSON.parse(manifest.out) as Record<string, unknown>;
    expect(published.scripts).toBeUndefined();
    expect(published.bin).toEqual({ 'energy-rental-kit': './bin/energy-rental-kit.js' });
    // The copy that was packed has its package.json back, byte for byte, and the checkout never lost its own.
    for (const dir of [stage, ROOT]) {
      expect(readFileSync(path.join(dir, 'package.json'), 'utf8')).toBe(manifestBefore);
      expect(existsSync(path.join(dir, 'package.json.pack-saved'))).toBe(false);
    }
  });

  it('was built by its prepack into a dist/ whose simulator serves every static file of the dashboard', async () => {
    // The packed copy's dist/, as `npm pack` built it: the dashboard's files are found from
    // there, not only from the TypeScript sources.
    const { createSimulator: createBuilt } = (await import(
      pathToFileURL(path.join(stage, 'dist/mock/simulator.js')).href
    )) as typeof import('../mock/simulator.ts');
    const sim = createBuilt({ clock: 'manual' });
    const names = readdirSync(path.join(ROOT, 'mock/http/dashboard/static'));
    expect(names).toContain('index.html');
    for (const name of names) {
      const page = { 'index.html': '/_sim/ui', 'docs.html': '/docs' }[name];
      const res = await sim.app.request(page ?? `/_sim/ui/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css'])
      expect((await sim.app.request(`/docs/assets/${asset}`)).status, asset).toBe(200);
  });
});

describe.concurrent('the same commands in this checkout', () => {
  it(
    'run the TypeScript sources through bin/, with the report where the user asked',
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'erk-checkout-'));
      try {
        const contract = await run(
          process.execPath,
          [
            path.join(ROOT, 'bin/energy-rental-kit.js'),
            'contract',
            '--report',
            path.join(dir, 'report.json'),
          ],
          ROOT,
        );
        expect(contract.code, contract.out).toBe(0);
        expect(contract.out).toMatch(/\d+ passed, 0 failed/);
        expect(existsSync(path.join(dir, 'report.json'))).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    GUARD,
  );
});

// One project with the user's own vitest: the kit must run its suite beside it without
// reading it. A project with nothing but the kit is the README's (below), which installs
// the tarball as the README says and runs every command from there.
const BESIDE_USER_VITEST =
  "the installed package, beside the user's own vitest 4 and a config the kit must not read";
describe.concurrent(BESIDE_USER_VITEST, () => {
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(path.join(tmpdir(), 'erk-user-'));
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, type: 'module' }),
    );
    const installed = await npm(
      ['install', '--save-dev', tarball, 'vitest@4', 'msw@2', 'typescript@5.9', '@types/node@20'],
      project,
    );
    expect(installed.code, installed.out).toBe(0);
    // npm 11 lists a dependency's install scripts on install; the kit has none.
    expect(installed.out).not.toMatch(/energy-rental-kit@[^ ]+ \((prepare|install|postinstall)/);
    // If the kit read this, its suite would find no test files and fail.
    writeFileSync(
      path.join(project, 'vitest.config.mjs'),
      "export default { test: { include: ['consumer/**/*.test.ts'] } };\n",
    );
  }, GUARD);
  // A project with the user's vitest, msw and TypeScript takes a while to delete on a busy
  // machine: off the event loop, which the README walk's stand-in, beside it, answers from.
  afterAll(() => rm(project, { recursive: true, force: true }), GUARD);

  it(
    'prints the help of every command, naming the commands as a user types them',
    { concurrent: false, timeout: GUARD },
    async () => {
      // Both at once: each only prints.
      const [help, contractHelp] = await Promise.all([
        kit(project, '--help'),
        kit(project, 'contract', '--help'),
      ]);
      expect(help.code, help.out).toBe(0);
      // One line a command.
      for (const command of ['serve', 'contract', 'record', 'drift', 'calibrate', 'coverage'])
        expect(help.out).toMatch(new RegExp(`^ {2}${command} +\\S`, 'm'));
      expect(help.out.split('\n').length).toBeLessThan(20);
      expect(contractHelp.code, contractHelp.out).toBe(0);
      expect(contractHelp.out).toContain('--base-url');
      for (const text of [help.out, contractHelp.out]) expect(text).not.toMatch(/npm start|npm run /);
    },
  );

  // The README walk below runs each of these commands from the same tarball in a project
  // with no vitest of its own; here they run once more beside the user's vitest, which they
  // must not read. From the bin npx runs: the help above and the README walk run npx itself.
  it(
    'runs the contract suite in-process, then records, replays and compares, writing into the project',
    { concurrent: false, timeout: GUARD },
    async () => {
      const contract = await bin(project, 'contract');
      expect(contract.code, contract.out).toBe(0);
      expect(contract.out).toMatch(/\d+ passed, 0 failed/);
      expect(JSON.parse(readFileSync(path.join(project, 'contract-report.json'), 'utf8'))).toMatchObject({
        summary: { failed: 0 },
      });

      const record = await bin(project, 'record', '--out', 'rec.json');
      expect(record.code, record.out).toBe(0);
      expect(existsSync(path.join(project, 'rec.json'))).toBe(true);

      const replay = await bin(project, 'contract', '--replay', 'rec.json');
      expect(replay.code, replay.out).toBe(0);
      expect(replay.out).toMatch(/\d+ passed, 0 failed/);

      const drift = await bin(project, 'drift', 'rec.json', 'rec.json', '--json', 'drift.json');
      expect(drift.code, drift.out).toBe(0);
      expect(existsSync(path.join(project, 'drift.json'))).toBe(true);
      const spec = await bin(project, 'drift', '--spec', 'rec.json');
      expect(spec.code, spec.out).toBe(0);

      const calibrated = await bin(project, 'calibrate', 'rec.json', '--out', 'calibrated.yaml');
      expect(calibrated.code, calibrated.out).toBe(0);
      expect(readFileSync(path.join(project, 'calibrated.yaml'), 'utf8')).toMatch(
        /# getPrice, .*sun 65\n\s*1h: "65"/,
      );
    },
  );

  it(
    'serves the simulator, and runs the suite against it over HTTP',
    { concurrent: false, timeout: GUARD },
    async () => {
      const server = await serve(project);
      try {
        const price = await fetch(`${server.url}/v1/tron/price?rentalCount=65000&period=1h`, {
          headers: { 'API-KEY': 'demo-key' },
        });
        expect(((await price.json()) as { data: { trxPrice: string } }).data.trxPrice).toBe('4.23');
        // The dashboard and /docs are files of the package, read from where it is installed.
        const page = await fetch(`${server.url}/_sim/ui`);
        expect(page.status).toBe(200);
        const script = /src="([^"]+\.js)"/.exec(await page.text())?.[1];
        expect(script, 'the dashboard page names its script').toBeDefined();
        expect((await fetch(new URL(script!, `${server.url}/_sim/ui`))).status).toBe(200);
        expect((await fetch(`${server.url}/docs`)).status).toBe(200);
        const contract = await bin(project, 'contract', '--base-url', server.url, '--api-key', 'demo-key');
        expect(contract.code, contract.out).toBe(0);
        expect(contract.out).toMatch(/\d+ passed, 0 failed/);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    },
  );

  it(
    "answers the user's own MSW test from the simulator; the README's recipe and snippets and an import of every entry point typecheck strictly under both resolutions, and under nodenext the declarations of the kit and its dependencies too (skipLibCheck false)",
    // Checking every declaration file twice took 2.7 minutes on a loaded machine.
    { concurrent: false, timeout: GUARD },
    async () => {
      mkdirSync(path.join(project, 'consumer'), { recursive: true });
      writeFileSync(
        path.join(project, 'consumer/buy.test.ts'),
        [
          "import { setupServer } from 'msw/node';",
          "import { afterAll, beforeAll, expect, it } from 'vitest';",
          "import { createClient } from 'energy-rental-kit/client';",
          "import { simulatorHandlers } from 'energy-rental-kit/msw';",
          'const server = setupServer(...simulatorHandlers());',
          "beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));",
          'afterAll(() => server.close());',
          "it('prices from the simulator at the real base URL', async () => {",
          "  const client = createClient({ baseUrl: 'https://api.eopen.io/api', apiKey: 'demo-key' });",
          "  expect((await client.getPrice({ rentalCount: 65000, period: '1h' })).trxPrice).toBe('4.23');",
          '});',
          '',
        ].join('\n'),
      );
      // The README's files as it shows them, each where its first line puts it: the code
      // under test and its test run here beside the user's own.
      const readme = shippedMarkdown()
        .map((file) => readFileSync(path.join(ROOT, file), 'utf8'))
        .join('\n');
      const placed = [
        ...readFileSync(path.join(ROOT, 'README.md'), 'utf8').matchAll(
          /```ts\n\/\/ ([\w./-]+\.ts)\n([\s\S]*?)```/g,
        ),
      ].filter(([, file]) => file !== 'vitest.global-setup.ts');
      expect(placed.map(([, file]) => file)).toEqual(['src/buy-energy.ts', 'test/buy-energy.test.ts']);
      for (const [, file, code] of placed) {
        mkdirSync(path.dirname(path.join(project, 'consumer', file!)), { recursive: true });
        writeFileSync(path.join(project, 'consumer', file!), code!);
      }
      const tested = run('npx', ['--no', 'vitest', 'run'], project);

      // The globalSetup recipe exactly as the README shows it.
      const recipe = /```ts\n(\/\/ vitest\.global-setup\.ts[\s\S]*?)```/.exec(readme)?.[1];
      expect(recipe, 'the README keeps its globalSetup recipe').toBeDefined();
      writeFileSync(path.join(project, 'consumer/vitest.global-setup.ts'), recipe!);
      // Every other snippet of the README and the docs pages that imports the kit, as shown (one that imports a checkout's
      // ./src or ./mock fails here: a package user has neither). Snippets that import the
      // reader's own code ('../src/buy-energy.js') are left out, but for the README's files above.
      const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
        .map((m) => m[1]!)
        .filter(
          (code) =>
            /from '(energy-rental-kit|\.\/(src|mock)\/)/.test(code) &&
            !code.includes("from '../") &&
            code !== recipe &&
            !placed.some(([, , placedCode]) => placedCode === code),
        );
      expect(snippets.length).toBeGreaterThanOrEqual(3);
      snippets.forEach((code, i) => writeFileSync(path.join(project, `consumer/readme-${i}.ts`), code));
      writeFileSync(
        path.join(project, 'consumer/entry-points.ts'),
        [
          "import { inject } from 'vitest';",
          "import { createClient as rootClient } from 'energy-rental-kit';",
          "import { createClient, EnergyRentalError } from 'energy-rental-kit/client';",
          "import type { Order } from 'energy-rental-kit/models';",
          "import { createSimulator } from 'energy-rental-kit/simulator';",
          "import { startSimulator } from 'energy-rental-kit/testing';",
          "import { simulatorHandlers } from 'energy-rental-kit/msw';",
          "const url: string = inject('energyApiUrl');",
          "const order: Pick<Order, 'status'> = { status: 'COMPLETED' };",
          "const handlers = simulatorHandlers(createSimulator({ clock: 'manual' }), { baseUrl: url });",
          'export const all = [rootClient, createClient, EnergyRentalError, startSimulator, handlers, order];',
          '',
        ].join('\n'),
      );
      // Every entry point package.json exports with types, so a new one is checked too.
      const exported = (JSON.parse(manifestBefore) as { exports: Record<string, unknown> }).exports;
      const entries = Object.entries(exported)
        .filter(([, target]) => typeof target === 'object' && target !== null && 'types' in target)
        .map(([subpath]) => `energy-rental-kit${subpath.slice(1)}`);
      expect(entries).toEqual(
        expect.arrayContaining(['energy-rental-kit/simulator', 'energy-rental-kit/msw']),
      );
      mkdirSync(path.join(project, 'strict'), { recursive: true });
      writeFileSync(
        path.join(project, 'strict/every-entry-point.ts'),
        [
          ...entries.map((entry, i) => `import * as entry${i} from '${entry}';`),
          `export const all = [${entries.map((_, i) => `entry${i}`).join(', ')}];`,
          '',
        ].join('\n'),
      );
      // Three programs, at the same time (each a tsc of its own; none writes anything), with
      // the project's own tsc, without npx's start. The declarations themselves are checked
      // under nodenext, the stricter (every import of a declaration file must name its
      // file), from the import of every entry point alone: the user's files beside it would
      // add msw/node's declarations, which are not the kit's (4 s of CPU). Bundler checks
      // the user's files and every entry point in one program with the declarations taken
      // as they are: its resolution of each entry point and each import in the kit's
      // declarations is checked by Are the Types Wrong above, and checking vitest's,
      // vite's and msw's declarations again took 8 s of CPU.
      const tsc = path.join(project, 'node_modules/.bin/tsc');
      const programs = [
        ['nodenext-declarations', 'nodenext', false, ['strict']],
        ['nodenext', 'nodenext', true, ['consumer']],
        ['bundler', 'bundler', true, ['consumer', 'strict']],
      ] as const;
      const checks = programs.map(async ([name, resolution, skipLibCheck, include]) => {
        const config = `tsconfig.${name}.json`;
        writeFileSync(
          path.join(project, config),
          JSON.stringify({
            compilerOptions: {
              module: resolution === 'nodenext' ? 'nodenext' : 'esnext',
              moduleResolution: resolution,
              skipLibCheck,
              target: 'es2022',
              lib: ['es2023', 'dom'],
              strict: true,
              noEmit: true,
              types: ['node'],
            },
            include,
          }),
        );
        return { name, checked: await run(tsc, ['-p', config], project) };
      });
      for (const { name, checked } of await Promise.all(checks)) {
        // Only what the kit ships is the kit's to answer for: no error may name its dist/.
        const own = checked.out.split('\n').filter((line) => line.includes('energy-rental-kit/dist/'));
        expect(own, `${name}: ${checked.out}`).toEqual([]);
        expect(checked.code, `${name}: ${checked.out}`).toBe(0);
      }
      const answered = await tested;
      expect(answered.code, answered.out).toBe(0);
      expect(answered.out).toMatch(/Tests\s+2 passed/);
    },
  );
});

/** README.md and the docs pages: the markdown the package ships, as paths in the checkout. */
function shippedMarkdown(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort()];
}

/**
 * The commands of the README a package user types, in order: every line of a `sh` block that
 * starts with `npx energy-rental-kit` or installs the kit. A new README command is run here
 * without an edit to this test.
 */
function readmeCommands(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((block) => block[1]!.split('\n'))
    .map((line) => line.trim())
    .filter((line) => /^(npx energy-rental-kit\b|npm install -D energy-rental-kit\b)/.test(line));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/**
 * A stand-in for the real service on a loopback port: the plain member of the contract
 * suite's family of stand-ins (written from the documents alone, departing from none of
 * them, so the README's `drift --spec` finds nothing), with no control plane under any
 * prefix, as the real service has none. It answers from this file's event loop,
 * which the other describes share while it runs: nothing in this file may hold that loop
 * (a removal is fs/promises' rm, never rmSync).
 */
async function startStandIn(): Promise<{ origin: string; close(): Promise<void> }> {
  const standIn = memberFetch('plain');
  const server = serveFetch({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request: Request) =>
      /\/_sim(\/|$)/.test(new URL(request.url).pathname)
        ? new Response('Not Found', { status: 404 })
        : standIn(request),
  });
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets of the kit's finished runs would hold close() open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

/**
 * Runs one README `serve` line as typed, on a free port, and stops it by its PID once it
 * answers: `exec` makes the shell's PID the server's, so SIGTERM reaches the server itself.
 */
async function serveLine(project: string, line: string, env: NodeJS.ProcessEnv): Promise<string> {
  const command = line.replace(/^npx energy-rental-kit\b/, 'exec node_modules/.bin/energy-rental-kit');
  const server = spawn('sh', ['-c', `${command} --port 0`], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  let out = '';
  server.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const url = await Promise.race([
    new Promise<string>((resolve) => {
      const check = (): void => {
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
        else setTimeout(check, 50);
      };
      check();
    }),
    exited.then((code) => `exited with ${code}`),
    new Promise<string>((resolve) => setTimeout(() => resolve('no banner within the guard'), GUARD)),
  ]);
  expect(url, `${line}\n${out}`).toMatch(/^http:\/\//);
  const health = await fetch(`${url}/_sim/health`);
  expect(health.status, `${line}: /_sim/health`).toBe(200);
  server.kill('SIGTERM');
  expect(await exited, `${line}\n${out}`).toBe(0);
  return out;
}

describe.concurrent('the README, followed by a package user', () => {
  let project: string;
  let standIn: Awaited<ReturnType<typeof startStandIn>>;
  let added: number | undefined;

  beforeAll(async () => {
    project = mkdtempSync(path.join(tmpdir(), 'erk-readme-'));
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'readme-user', version: '1.0.0', private: true, type: 'module' }),
    );
    standIn = await startStandIn();
  }, GUARD);
  afterAll(async () => {
    await standIn.close();
    await rm(project, { recursive: true, force: true });
  }, GUARD);

  it(
    'links, from the README and every docs page, only to files the package ships and headings they have',
    { concurrent: false },
    async () => {
      const listed = await run('tar', ['-tzf', tarball], packDir);
      const shipped = new Set(
        listed.out
          .split('\n')
          .filter(Boolean)
          .map((f) => f.replace(/^package\//, '').replace(/\/$/, '')),
      );
      const isShipped = (file: string): boolean =>
        shipped.has(file) || [...shipped].some((f) => f.startsWith(`${file}/`));
      const markdown = shippedMarkdown();
      for (const file of markdown) expect(shipped, `${file} ships`).toContain(file);
      const broken: string[] = [];
      for (const file of markdown) {
        const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
        const links = [...text.matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src="([^"]+)"/g)].map((m) => ({
          image: m[1] === '!' || m[3] !== undefined,
          target: (m[2] ?? m[3])!,
        }));
        for (const { image, target } of links) {
          if (/^[a-z]+:/i.test(target)) continue;
          const [file2, fragment] = target.split('#') as [string, string | undefined];
          const resolved = file2
            ? path.posix.normalize(path.posix.join(path.posix.dirname(file), file2))
            : file;
          // Screenshots stay in the repository (the tarball stays small); a missing one shows its alt text.
          const present = image ? existsSync(path.join(ROOT, resolved)) : isShipped(resolved);
          if (!present) broken.push(`${file}: ${target}`);
          else if (fragment && resolved.endsWith('.md')) {
            const headings = readFileSync(path.join(ROOT, resolved), 'utf8')
              .replace(/```[\s\S]*?```/g, '')
              .split('\n')
              .filter((l) => /^#+ /.test(l))
              .map((l) => anchorOf(l.replace(/^#+ /, '')));
            if (!headings.includes(fragment)) broken.push(`${file}: ${target} (no such heading)`);
          }
        }
      }
      expect(broken).toEqual([]);
    },
  );

  it('gives the npm-script forms of a clone only in its opening lines and its Development parts', () => {
    const npmScript = /\bnpm (start|test|run \S+)/;
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const forUsers = readme.slice(
      readme.indexOf("Everything below is for the package's users."),
      readme.indexOf('\n## Development\n'),
    );
    expect(forUsers.length).toBeGreaterThan(1000);
    expect(forUsers).not.toMatch(npmScript);
    for (const file of shippedMarkdown().filter((f) => f.startsWith('docs/') && f !== 'docs/development.md'))
      for (const line of readFileSync(path.join(ROOT, file), 'utf8').split('\n'))
        if (npmScript.test(line)) expect(line, file).toMatch(/in a clone/i);
  });

  it(
    'runs every command of the README in its package form, real-service URLs pointed at a stand-in',
    { concurrent: false, timeout: GUARD },
    async () => {
      const commands = readmeCommands();
      expect(commands.length).toBeGreaterThanOrEqual(10);
      expect(commands[0], 'the README installs the kit before it runs it').toMatch(/^npm install\b/);
      // Commands that talk to `serve` on its default port reach one started here instead.
      let simulator: Awaited<ReturnType<typeof serve>> | undefined;
      // The runs against the stand-in keep a pace (it is no simulator to the suite), at 20
      // requests a second instead of the real service's 4: the pace is proved in
      // drift/polite-record.test.ts, and four paced runs took 45 s of this walk.
      const env: NodeJS.ProcessEnv = { ...userEnv(), ERK_API_KEY: 'demo-key', CONTRACT_MAX_RPS: '20' };
      try {
        for (const typed of commands) {
          let line = typed
            .replace(/\s+#\s.*$/, '')
            .replaceAll('https://api.eopen.io', standIn.origin)
            .trim();
          for (const [, name] of line.matchAll(/\$(\w+)/g))
            expect(env[name!], `${typed}: $${name} is set for the run`).toBeDefined();
          if (line.startsWith('npm install')) {
            const installed = await npm(
              [
                'install',
                '--save-dev',
                tarball,
                ...line
                  .split(/\s+/)
                  .slice(3)
                  .filter((a) => a !== 'energy-rental-kit'),
              ],
              project,
            );
            expect(installed.code, `${typed}\n${installed.out}`).toBe(0);
            // Nothing the kit brings runs an install script (nor reports installs from one):
            // npm names each one it sees, and the lockfile marks it.
            expect(installed.out).not.toMatch(/install-scripts|postinstall|preinstall/);
            const lock = JSON.parse(readFileSync(path.join(project, 'package-lock.json'), 'utf8')) as {
              packages: Record<string, { hasInstallScript?: boolean }>;
            };
            expect(
              Object.entries(lock.packages)
                .filter(([, entry]) => entry.hasInstallScript)
                .map(([name]) => name),
            ).toEqual([]);
            added = Number(/added (\d+) packages?/.exec(installed.out)?.[1]);
            continue;
          }
          if (line.includes('http://127.0.0.1:8787')) {
            simulator ??= await serve(project);
            line = line.replaceAll('http://127.0.0.1:8787', simulator.url);
          }
          if (/^npx energy-rental-kit serve\b/.test(line)) {
            await serveLine(project, line, env);
            continue;
          }
          const ran = await new Promise<Run>((resolve, reject) => {
            const child = spawn('sh', ['-c', line], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
            child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
            const timer = setTimeout(() => child.kill('SIGKILL'), GUARD);
            child.once('error', reject);
            child.once('close', (code) => {
              clearTimeout(timer);
              resolve({ code, out });
            });
          });
          expect(ran.code, `${typed}\n${ran.out}`).toBe(0);
        }
      } finally {
        if (simulator) expect(await simulator.stop()).toBe(0);
      }
    },
  );

  it(
    "copies, from the installed kit's dashboard in Chromium, a curl command that runs as copied",
    { concurrent: false, timeout: GUARD },
    async () => {
      expect(added, 'the README install ran first').toBeGreaterThan(0);
      const server = await serve(project);
      const { page, errors, close } = await openDashboard(`${server.url}/_sim/ui`);
      try {
        const order = await fetch(`${server.url}/v1/tron/order`, {
          method: 'POST',
          headers: { 'API-KEY': 'demo-key', 'content-type': 'application/x-www-form-urlencoded' },
          body: 'pledgeAddress=TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3&rentalCount=65000&period=1h&outOrderNo=copied-1',
        });
        expect(order.status).toBe(200);
        await page.fill('[data-testid="filter-text"]', 'copied-1');
        const exchange = page.locator('[data-testid="journal-row"]').first();
        await exchange.waitFor({ timeout: WAIT_MS });
        await exchange.click();
        await page
          .locator('[data-testid="curl-command"]', { hasText: "'API-KEY: demo-key'" })
          .waitFor({ timeout: WAIT_MS });
        await page.getByRole('button', { name: 'Copy as curl' }).click();
        const copied = await page.evaluate(() => navigator.clipboard.readText());
        const ran = await run('sh', ['-c', `${copied} -s`], project);
        expect(ran.code, `${copied}\n${ran.out}`).toBe(0);
        expect(JSON.parse(ran.out)).toMatchObject({ code: 0, data: { outOrderNo: 'copied-1' } });
        for (const data of ['/_sim/journal', '/_sim/dashboard'])
          expect(await (await fetch(`${server.url}${data}`)).text(), data).not.toContain('demo-key');
        expect(errors).toEqual([]);
      } finally {
        await close();
        expect(await server.stop()).toBe(0);
      }
    },
  );

  it(
    "installs only run-time dependencies: none of the kit's build or lint tools",
    { concurrent: false },
    async () => {
      expect(added, 'the README install ran first').toBeGreaterThan(0);
      // The kit is all this project installed, so everything in it is the kit's tree.
      const listed = await run('npm', ['ls', '--all', '--parseable'], project);
      const names = listed.out
        .split('\n')
        .filter(Boolean)
        .map((dir) => path.relative(path.join(project, 'node_modules'), dir));
      expect(names).toContain('energy-rental-kit');
      for (const devOnly of [
        'openapi3-ts',
        'tsx',
        'typescript',
        '@redocly/cli',
        'playwright-core',
        'msw',
        'publint',
      ])
        expect(names).not.toContain(devOnly);
      expect(names).toContain('vitest');
    },
  );

  it(
    "states the tarball's size and what it installs as they are, within a tolerance",
    { concurrent: false },
    async () => {
      const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
      const figures = /(\d+) kB tarball \((\d+(?:\.\d+)?) MB unpacked\).*? installs (\d+) packages/.exec(
        readme,
      );
      expect(
        figures,
        'the README gives "N kB tarball (M MB unpacked)" and "installs P packages"',
      ).not.toBeNull();
      const [, packedKb, unpackedMb, packages] = figures!.map(Number) as [number, number, number, number];
      const listing = await run('tar', ['-tzvf', tarball], packDir);
      const unpacked = listing.out
        .split('\n')
        .filter(Boolean)
        .reduce((sum, entry) => sum + Number(entry.split(/\s+/)[2] ?? 0), 0);
      const near = (stated: number, actual: number, tolerance: number): boolean =>
        Math.abs(stated - actual) <= actual * tolerance;
      // Soft, so one run reports every stale figure with its measured value.
      const size = statSync(tarball).size;
      expect.soft(near(packedKb * 1000, size, 0.15), `${packedKb} kB stated, ${size} B packed`).toBe(true);
      expect
        .soft(near(unpackedMb * 1e6, unpacked, 0.15), `${unpackedMb} MB stated, ${unpacked} B unpacked`)
        .toBe(true);
      expect(added, 'the README install ran first and npm said how many packages it added').toBeGreaterThan(
        0,
      );
      expect
        .soft(Math.abs(packages - added!), `${packages} packages stated, ${added} added`)
        .toBeLessThanOrEqual(Math.max(2, Math.round(added! * 0.1)));
    },
  );
});
