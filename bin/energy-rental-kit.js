#!/usr/bin/env node
// In a checkout (the TypeScript sources are there) the CLI runs from them through tsx,
// so a stale dist/ can never shadow an edit; an installed package runs its built dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const source = fileURLToPath(new URL('../mock/cli/main.ts', import.meta.url));
const built = fileURLToPath(new URL('../dist/mock/cli/main.js', import.meta.url));
let cli;
if (existsSync(source) && process.env.ENERGY_RENTAL_KIT_USE_DIST !== '1') {
  const { tsImport } = await import('tsx/esm/api');
  cli = await tsImport('../mock/cli/main.ts', import.meta.url);
} else {
  cli = await import(pathToFileURL(built).href);
}
await cli.run(process.argv.slice(2));
