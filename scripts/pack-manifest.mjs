#!/usr/bin/env node
// The package.json a user installs has no `scripts`: each needs files and devDependencies the
// package does not ship (and npm warns about a dependency's `prepare`). `prepack` strips them,
// `postpack` puts the checkout's file back, byte for byte (as pinst and clean-publish do).
//
//   node scripts/pack-manifest.mjs strip     (prepack: after the build)
//   node scripts/pack-manifest.mjs restore   (postpack)
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the checkout's package.json waits while a pack runs. */
function files(root) {
  return { manifest: path.join(root, 'package.json'), saved: path.join(root, 'package.json.pack-saved') };
}

/**
 * Restores the checkout's package.json if a pack left it stripped (an interrupted pack
 * never ran postpack); true when it did.
 */
export function restoreManifest(root = ROOT) {
  const { manifest, saved } = files(root);
  if (!existsSync(saved)) return false;
  renameSync(saved, manifest);
  return true;
}

/** The published manifest: the checkout's, without `scripts`. */
export function publishedManifest(text) {
  const { scripts: _dropped, ...published } = JSON.parse(text);
  return `${JSON.stringify(published, null, 2)}\n`;
}

/** Saves the checkout's package.json aside and writes the published one in its place. */
export function stripManifest(root = ROOT) {
  restoreManifest(root);
  const { manifest, saved } = files(root);
  const text = readFileSync(manifest, 'utf8');
  writeFileSync(saved, text);
  writeFileSync(manifest, publishedManifest(text));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command] = process.argv.slice(2);
  if (command === 'strip') stripManifest();
  else if (command === 'restore') restoreManifest();
  else {
    console.error(
      `pack-manifest: unknown command '${command ?? ''}'; use strip (prepack) or restore (postpack).`,
    );
    process.exitCode = 1;
  }
}
