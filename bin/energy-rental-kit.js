#!/usr/bin/env node
// Runs the built CLI when the package is built (dist/), else the TypeScript sources
// through tsx, so `npm start` works on a fresh clone with no build step.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = fileURLToPath(new URL('../dist/mock/cli/main.js', import.meta.url));
let cli;
if (existsSync(built)) {
  cli = await import(pathToFileURL(built).href);
} else {
  const { tsImport } = await import('tsx/esm/api');
  cli = await tsImport('../mock/cli/main.ts', import.meta.url);
}
await cli.run(process.argv.slice(2));
