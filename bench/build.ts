/**
 * Compiles a checkout's simulator (mock/ and src/) to plain JavaScript with tsc, using
 * bench/tsconfig.bench.json (the repository's tsconfig.json is left alone), so the same
 * code can be run without tsx. The output lands under bench/.build/, inside this
 * repository, so its bare imports resolve to this repository's node_modules.
 *
 *   npx tsx bench/build.ts [--root DIR]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BENCH_DIR, REPO_ROOT } from './servers.ts';

export interface BuildResult {
  buildDir: string;
  ms: number;
  /** tsc's type errors, if any: the build still emits, they are reported. */
  diagnostics: string;
}

/** Compiles `root` into a fresh directory under bench/.build and returns it. */
export function buildSimulator(root: string = REPO_ROOT): BuildResult {
  const absRoot = path.resolve(root);
  const tag =
    absRoot === REPO_ROOT ? 'repo' : `root-${createHash('sha1').update(absRoot).digest('hex').slice(0, 8)}`;
  const buildDir = path.join(BENCH_DIR, '.build', tag);
  rmSync(buildDir, { recursive: true, force: true });
  mkdirSync(buildDir, { recursive: true });

  // The bench config with every path made absolute for this checkout and build directory.
  const base = JSON.parse(readFileSync(path.join(BENCH_DIR, 'tsconfig.bench.json'), 'utf8')) as {
    compilerOptions: Record<string, unknown>;
    include: string[];
    exclude: string[];
  };
  const config = {
    extends: path.join(absRoot, 'tsconfig.json'),
    compilerOptions: { ...base.compilerOptions, rootDir: absRoot, outDir: buildDir },
    include: base.include.map((p) => path.join(absRoot, p.replace(/^\.\.\//, ''))),
    exclude: base.exclude.map((p) => path.join(absRoot, p.replace(/^\.\.\//, ''))),
  };
  const configPath = path.join(BENCH_DIR, '.build', `tsconfig.${tag}.json`);
  writeFileSync(configPath, JSON.stringify(config, null, 2));

  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const started = performance.now();
  const run = spawnSync(process.execPath, [tsc, '-p', configPath], { encoding: 'utf8' });
  const ms = performance.now() - started;
  if (
    !existsSync(path.join(buildDir, 'cli/main.js')) &&
    !existsSync(path.join(buildDir, 'mock/cli/main.js'))
  ) {
    throw new Error(
      `tsc produced no cli/main.js (or mock/cli/main.js) in ${buildDir}:\n${run.stdout}${run.stderr}`,
    );
  }
  // Files the code reads next to itself (HTML pages, …) are not tsc's business: copy them.
  for (const top of ['mock', 'src']) copyAssets(path.join(absRoot, top), path.join(buildDir, top));
  // The compiled package has no package.json of its own; without one Node would read the
  // .js files as CommonJS or have to guess. Mark them ESM like the repository.
  writeFileSync(path.join(buildDir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return { buildDir, ms, diagnostics: `${run.stdout}${run.stderr}`.trim() };
}

function copyAssets(from: string, to: string): void {
  if (!existsSync(from)) return;
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, path.join(to, entry.name));
    else if (entry.isFile() && !/\.(ts|tsx|mts|cts)$/.test(entry.name)) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, path.join(to, entry.name));
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rootFlag = process.argv.indexOf('--root');
  const result = buildSimulator(rootFlag > 0 ? process.argv[rootFlag + 1] : REPO_ROOT);
  console.log(
    `built into ${result.buildDir} in ${Math.round(result.ms)} ms${result.diagnostics ? `\n${result.diagnostics}` : ''}`,
  );
}
