#!/usr/bin/env node
// In a checkout (the TypeScript sources are there) the CLI runs from them, so a stale
// build can never shadow an edit: `serve` from the esbuild bundle of them when
// scripts/cli-bundle.mjs proves it fresh (it starts in a third of tsx's time), anything
// else, or a stale bundle, through tsx. An installed package runs its built dist/.
// ENERGY_RENTAL_KIT_USE_DIST=1 forces dist/, ENERGY_RENTAL_KIT_USE_TSX=1 tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const source = fileURLToPath(new URL('../cli/main.ts', import.meta.url));
const built = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const argv = process.argv.slice(2);
let cli;
if (existsSync(source) && process.env.ENERGY_RENTAL_KIT_USE_DIST !== '1') {
  let bundle;
  if (argv[0] === 'serve' && process.env.ENERGY_RENTAL_KIT_USE_TSX !== '1') {
    const { freshBundle } = await import('../scripts/cli-bundle.mjs');
    bundle = freshBundle();
  }
  if (bundle) {
    cli = await import(pathToFileURL(bundle).href);
  } else {
    const { tsImport } = await import('tsx/esm/api');
    cli = await tsImport('../cli/main.ts', import.meta.url);
  }
} else {
  cli = await import(pathToFileURL(built).href);
}
await cli.run(argv);
