/**
 * Interactive API reference: Swagger UI (served locally, so it works with no network) for
 * the API at /docs and the control plane at /docs/control. The simulator itself is put
 * first among the servers as the relative URL `/`, which Swagger UI resolves against the
 * page, so "Try it out" talks to this simulator; the request's Host is never written into
 * the document (it was reflected before). The demo key is pre-authorised.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { loadSpec, type DocumentName } from '../../src/spec/loader.ts';
import { SimulatorError } from '../engine/index.ts';
import type { SimEnv } from './context.ts';

/** The two files of swagger-ui-dist the page needs (the build copies them; package.json "build"). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/**
 * The package ships the two files in dist/swagger-ui/ rather than depending on
 * swagger-ui-dist, whose @scarf/scarf runs a postinstall that reports installs; a checkout
 * reads them from swagger-ui-dist, a devDependency.
 */
function assetDirectory(): string {
  const shipped = fileURLToPath(new URL('../../swagger-ui/', import.meta.url));
  if (existsSync(shipped)) return shipped;
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

function page(title: string, specUrl: string, schemes: string[]): string {
  const preauthorize = schemes
    .map((scheme) => `ui.preauthorizeApiKey(${JSON.stringify(scheme)}, 'demo-key');`)
    .join(' ');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title}</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>body { margin: 0; } .erk-nav { font: 14px system-ui, sans-serif; padding: 10px 20px; background: #1f2937; color: #e5e7eb; }
  .erk-nav a { color: #93c5fd; margin-right: 16px; text-decoration: none; }</style>
</head>
<body>
  <nav class="erk-nav"><strong style="margin-right:20px">energy-rental-kit</strong><a href="/docs">API reference</a><a href="/docs/control">Control plane</a><a href="/_sim/ui">Dashboard</a></nav>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.addEventListener('load', function () {
      var ui = SwaggerUIBundle({
        url: ${JSON.stringify(specUrl)},
        dom_id: '#swagger-ui',
        deepLinking: true,
        persistAuthorization: true,
        tryItOutEnabled: true,
        presets: [SwaggerUIBundle.presets.apis],
        layout: 'BaseLayout',
        onComplete: function () { ${preauthorize} }
      });
      window.ui = ui;
    });
  </script>
</body>
</html>`;
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

  docs.get('/', (c) =>
    c.html(page('Energy Rental API — energy-rental-kit', '/docs/openapi.json', ['apiKey'])),
  );
  docs.get('/control', (c) =>
    c.html(page('Simulator control plane — energy-rental-kit', '/docs/control.json', ['accountKey'])),
  );
  docs.get('/openapi.json', (c) => c.json(withLocalServer('api')));
  docs.get('/control.json', (c) => c.json(withLocalServer('control')));
  docs.get('/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (!type) throw new SimulatorError('notFound', `No asset '${file}' under /docs/assets.`);
    let content = cache.get(file);
    if (!content) {
      content = readFileSync(path.join(assetDirectory(), file));
      cache.set(file, content);
    }
    return c.body(new Uint8Array(content), 200, {
      'content-type': type,
      'cache-control': 'public, max-age=86400',
    });
  });
  return docs;
}
