#!/usr/bin/env node
// Runs the simulator's CLI from the compiled JavaScript of bench/build.ts instead of the
// TypeScript sources through tsx, to measure what tsx costs:
//
//   node bench/serve-built.mjs <build-dir> serve --port 0 ...
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [buildDir, ...argv] = process.argv.slice(2);
if (!buildDir) {
  console.error('usage: node bench/serve-built.mjs <build-dir> serve [options]');
  process.exit(2);
}
const cli = await import(pathToFileURL(path.resolve(buildDir, 'mock/cli/main.js')).href);
await cli.run(argv);
