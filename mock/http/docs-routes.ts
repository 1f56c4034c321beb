/**
 * Swagger UI for the API at /docs and the control plane at /docs/control; the simulator is
 * the first server, as the relative URL `/` (never the request's Host).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { loadSpec, type DocumentName } from '../../src/spec/loader.ts';
import { SimulatorError } from '../engine/index.ts';
import type { SimEnv } from './context.ts';
import { dashboardAssets } from './dashboard/assets.ts';

/** The two files of swagger-ui-dist the page needs (the build copies them; package.json "build"). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** The package ships the files in dist/swagger-ui/ (swagger-ui-dist's postinstall reports installs); a checkout reads the devDependency. */
function assetDirectory(): string {
  const shipped = fileURLToPath(new URL('../../swagger-ui/', import.meta.url));
  if (existsSync(shipped)) return shipped;
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * Builds the /docs routes.
 *
 * @example
 *   app.route('/docs', docsRoutes());
 */
export function docsRoutes(): Hono<SimEnv> {
  const docs = new Hono<SimEnv>();
  const cache = new Map<string, Buffer>();
  const withLocalServer = (name: DocumentName): unknown => {
    const document = loadSpec(name).document;
    const servers = (document.servers ?? []).filter((s) => !s.url.startsWith('http://127.0.0.1'));
    return {
      ...document,
      servers: [{ url: '/', description: 'This simulator (demo key: demo-key)' }, ...servers],
    };
  };

  // One page for both documents: its script picks the document by the path.
  const page = dashboardAssets();
  docs.on('GET', ['/', '/control'], (c) =>
    c.html(page.get('docs.html')!.body, 200, { 'X-Content-Type-Options': 'nosniff' }),
  );
  docs.get('/openapi.json', (c) => c.json(withLocalServer('api')));
  docs.get('/control.json', (c) => c.json(withLocalServer('control')));
  docs.get('/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (!type) throw new SimulatorError('notFound', `No asset '${file}' under /docs/assets.`);
    const content = cache.get(file) ?? readFileSync(path.join(assetDirectory(), file));
    cache.set(file, content);
    return c.body(new Uint8Array(content), 200, {
      'content-type': type,
      'cache-control': 'public, max-age=86400',
    });
  });
  return docs;
}
