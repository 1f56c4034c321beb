#!/usr/bin/env node
// The package.json a user installs has no `scripts`: each needs files and devDependencies the
// package does not ship (and npm warns about a dependency's `prepare`). `prepack` strips them,
// `postpack` puts the checkout's file back, byte for byte (as pinst and clean-publish do).
//
//   node scripts/pack-manifest.mjs strip     (prepack: after the build)
//   node scripts/pack-manifest.mjs restore   (postpack)
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
