/** The dashboard's static files, found from the package root: sources, bundle and dist/ read one folder. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'energy-rental-kit';
/** The folder under the package root; package.json `files` lists it. */
const DASHBOARD_ASSET_DIR = 'mock/http/dashboard/static';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

interface DashboardAsset {
  body: string;
  contentType: string;
}

/** Walks up from `start` to the folder whose package.json names this package. */
function packageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME)
          return dir;
      } catch {
        // Not JSON: keep walking up.
      }
    }
    if (path.dirname(dir) === dir)
      throw new Error(
        `energy-rental-kit: cannot find the package root above ${start} (the dashboard's files live in ${DASHBOARD_ASSET_DIR}).`,
      );
  }
}

/**
 * Reads every dashboard file once, on first use, and keeps them.
 *
 * @example
 *   const assets = dashboardAssets();
 *   assets.get('main.js')?.contentType; // 'text/javascript; charset=utf-8'
 */
export function dashboardAssets(): { get(name: string): DashboardAsset | undefined } {
  let files: Map<string, DashboardAsset> | undefined;
  const load = (): Map<string, DashboardAsset> => {
    const folder = path.join(packageRoot(path.dirname(fileURLToPath(import.meta.url))), DASHBOARD_ASSET_DIR);
    const map = new Map<string, DashboardAsset>();
    for (const name of readdirSync(folder)) {
      const contentType = TYPES[path.extname(name)];
      if (contentType) map.set(name, { body: readFileSync(path.join(folder, name), 'utf8'), contentType });
    }
    return map;
  };
  return {
    get(name) {
      files ??= load();
      // Only names read from the folder: a request can never reach another path.
      return files.get(name);
    },
  };
}
