/**
 * The one name a file has once every symlink is followed. A lock or an atomic save keyed
 * on the name a user typed is walked around by a second name of the same file: a lock
 * beside `link.json` is not the lock beside `real.json`, and renaming a new file onto
 * `link.json` replaces the link instead of updating what it points at.
 */
import { readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Linux gives up after 40 links in one lookup (ELOOP); so does this. */
const MAX_LINKS = 40;

/**
 * The absolute real path of `file`: `fs.realpathSync` when it exists; for a file not there
 * yet, the real path of its directory plus its base name, after following a symlink that
 * points at it (a dangling link names where the file will be). When even the directory is
 * missing, the path as given, resolved, so the error of whatever uses it names it.
 *
 * @example
 *   realPathOf('.state/link.json'); // '/home/me/app/.state/real.json' when link.json → real.json
 *   realPathOf('.state/new.json'); // '/home/me/app/.state/new.json' before its first save
 */
export function realPathOf(file: string): string {
  let current = path.resolve(file);
  for (let links = 0; links <= MAX_LINKS; links++) {
    try {
      return realpathSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return current;
    }
    let directory: string;
    try {
      directory = realpathSync(path.dirname(current));
    } catch {
      return current;
    }
    let target: string;
    try {
      target = readlinkSync(current);
    } catch {
      // Not a link (EINVAL) or not there at all (ENOENT): a file yet to be made, in a real directory.
      return path.join(directory, path.basename(current));
    }
    current = path.resolve(directory, target);
  }
  return current;
}
