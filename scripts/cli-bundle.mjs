#!/usr/bin/env node
// An esbuild bundle of the CLI, used by bin/energy-rental-kit.js only when freshBundle() proves
// it was built from the files as they are now (a last-line stamp: size, mtime, SHA-1 of each).
//   node scripts/cli-bundle.mjs           build if stale (prepare, prestart, pretest)
//   node scripts/cli-bundle.mjs --force   build
//   node scripts/cli-bundle.mjs --check   say whether it is fresh (exit 0) or why not (exit 1)
//   … --commands all-but-suite            the same for the bundle the CLI's tests run (EXTERNAL)
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP_PREFIX = '// energy-rental-kit bundle stamp: ';
/** esbuild's loader by extension. */
const LOADERS = { ts: 'ts', mts: 'ts', cts: 'ts', js: 'js', mjs: 'js', cjs: 'js', json: 'json' };

/** The modules a bundle leaves to run time; the suite's runner finds its files from its own module's place. */
export const EXTERNAL = {
  serve: /\/(contract-tests|drift)\//,
  'all-but-suite': /\/(contract-tests\/contract-command|drift\/record-command)\.ts$/,
};

/** The bundle lives in node_modules, where the bare imports left to run time resolve. */
function settings({ root = ROOT, commands = 'serve' } = {}) {
  const file = commands === 'serve' ? 'cli.mjs' : `cli-${commands}.mjs`;
  return { root, commands, bundle: path.join(root, 'node_modules/.cache/energy-rental-kit', file) };
}

// Loaded only when an mtime moved: most starts need no hash.
const sha1 = (content) => require('node:crypto').createHash('sha1').update(content).digest('hex');

/** A file's content and [size, mtimeMs, SHA-1] (null when missing); stat first: an edit then is seen. */
function readWithFingerprint(file) {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return { content: undefined, print: null };
  const content = readFileSync(file);
  return { content, print: [stat.size, stat.mtimeMs, sha1(content)] };
}

function unchanged(file, print) {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (print === null) return stat === undefined;
  const [size, mtimeMs, hash] = print;
  if (stat?.size !== size) return false;
  return stat.mtimeMs === mtimeMs || sha1(readFileSync(file)) === hash;
}

/** Why the bundle cannot be used (not built, or the first file that changed); undefined when it is fresh. */
export function staleness(options) {
  const { root, commands, bundle } = settings(options);
  try {
    const text = readFileSync(bundle);
    const at = text.lastIndexOf(`\n${STAMP_PREFIX}`);
    if (at === -1) return 'no stamp';
    const stamp = JSON.parse(text.subarray(at + 1 + Buffer.byteLength(STAMP_PREFIX)).toString('utf8'));
    if (stamp.commands !== commands) return `built for ${stamp.commands} commands`;
    for (const [file, print] of Object.entries(stamp.files)) {
      if (!unchanged(path.resolve(root, file), print)) return `${file} changed`;
    }
    return undefined;
  } catch (error) {
    // No bundle, or a stamp of another shape (an older builder's).
    return error?.code === 'ENOENT' ? 'not built' : `unreadable stamp (${error?.message ?? error})`;
  }
}

/** The bundle's path when it is there and was built from the files as they are now; else undefined. */
export function freshBundle(options) {
  return staleness(options) === undefined ? settings(options).bundle : undefined;
}

/** Builds the bundle; resolves with its path and the build's milliseconds. */
export async function buildBundle(options) {
  const { root, commands, bundle } = settings(options);
  const started = performance.now();
  const { build } = await import('esbuild');
  const files = {};
  const result = await build({
    entryPoints: [path.join(root, 'cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    outfile: bundle,
    // For `node --enable-source-maps`; unminified, so the bundle's own lines stay readable.
    sourcemap: 'linked',
    logLevel: 'warning',
    // Bundled CommonJS (yaml, …) requires Node's built-ins.
    banner: {
      js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
    },
    plugins: [
      {
        name: 'energy-rental-kit',
        setup(b) {
          // What this bundle does not run is loaded at run time, if ever (EXTERNAL).
          b.onResolve({ filter: EXTERNAL[commands] }, (args) => ({ path: args.path, external: true }));
          // Every file is read here, so the stamp holds exactly what was bundled.
          b.onLoad({ filter: /.*/ }, (args) => {
            const loader = LOADERS[path.extname(args.path).slice(1)];
            if (!loader) return undefined;
            const { content, print } = readWithFingerprint(args.path);
            files[path.relative(root, args.path)] = print;
            return { contents: content, loader };
          });
        },
      },
    ],
  });
  // Files that steer the build without esbuild loading them (`npm install` rewrites the hidden lockfile).
  const steering = ['tsconfig.json', 'package.json', 'node_modules/.package-lock.json'];
  for (const file of [...steering, fileURLToPath(import.meta.url), require.resolve('esbuild/package.json')]) {
    const full = path.resolve(root, file);
    files[path.relative(root, full)] = readWithFingerprint(full).print;
  }
  const stamp = `${STAMP_PREFIX}${JSON.stringify({ commands, files })}\n`;
  mkdirSync(path.dirname(bundle), { recursive: true });
  // The bundle last: a start at this moment reads either build whole (a stale map at worst).
  const outputs = [...result.outputFiles].sort(
    (a, b) => Number(a.path === bundle) - Number(b.path === bundle),
  );
  for (const output of outputs) {
    const temporary = `${output.path}.${process.pid}.tmp`;
    writeFileSync(temporary, output.path === bundle ? `${output.text}${stamp}` : output.text);
    renameSync(temporary, output.path);
  }
  return { bundle, ms: performance.now() - started };
}

async function main(argv) {
  const at = argv.indexOf('--commands');
  const options = at === -1 ? {} : { commands: argv[at + 1] };
  if (!Object.hasOwn(EXTERNAL, options.commands ?? 'serve')) {
    console.error(`cli-bundle: --commands must be one of ${Object.keys(EXTERNAL).join(', ')}.`);
    return 2;
  }
  const { root, bundle } = settings(options);
  if (argv.includes('--check')) {
    const stale = staleness(options);
    console.log(stale ? `stale: ${stale}` : `fresh: ${path.relative(root, bundle)}`);
    return stale ? 1 : 0;
  }
  if (!argv.includes('--force') && !staleness(options)) return 0;
  try {
    const { ms } = await buildBundle(options);
    console.log(
      `energy-rental-kit: bundled the CLI into ${path.relative(root, bundle)} in ${Math.round(ms)} ms`,
    );
  } catch (error) {
    // Never fail an install or a start over it: without a bundle `serve` runs through tsx.
    rmSync(bundle, { force: true });
    console.warn(
      `energy-rental-kit: could not bundle the CLI (${error?.message ?? error}); \`serve\` will run through tsx.`,
    );
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
