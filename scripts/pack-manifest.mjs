#!/usr/bin/env node
// The published package.json has no `scripts` (they need files the package does not ship): `prepack`
// strips them, `postpack` restores the checkout's file byte for byte. Usage: pack-manifest.mjs strip|restore
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const manifest = fileURLToPath(new URL('../package.json', import.meta.url));
const saved = `${manifest}.pack-saved`;

/** Restores the checkout's package.json if a pack left it stripped (an interrupted pack never ran postpack). */
function restore() {
  if (existsSync(saved)) renameSync(saved, manifest);
}

const [command] = process.argv.slice(2);
if (command === 'strip') {
  restore();
  const text = readFileSync(manifest, 'utf8');
  writeFileSync(saved, text);
  const { scripts: _dropped, ...published } = JSON.parse(text);
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`);
} else if (command === 'restore') restore();
else {
  console.error(
    `pack-manifest: unknown command '${command ?? ''}'; use strip (prepack) or restore (postpack).`,
  );
  process.exitCode = 1;
}
