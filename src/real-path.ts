/** A file's one name once symlinks are followed: a lock keyed on a typed name is walked around by another. */
import { readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Linux gives up after 40 links in one lookup (ELOOP); so does this. */
const MAX_LINKS = 40;

/**
 * The real path of `file`, also of one yet to be made (via a dangling link too); with no directory, as given.
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
