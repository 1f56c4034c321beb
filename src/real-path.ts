/**
 * The one name a file has once every symlink is followed: a lock or an atomic save keyed on
 * the name a user typed would be walked around by a second name of the same file.
 */
import { readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Linux gives up after 40 links in one lookup (ELOOP); so does this. */
const MAX_LINKS = 40;

/**
 * The absolute real path of `file`, also of one not there yet (a dangling link names where it
 * will be); when even the directory is missing, the path as given, resolved.
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
