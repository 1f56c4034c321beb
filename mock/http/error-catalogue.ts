/**
 * The error catalogue in force (settings.errors, settings.errorStatus, settings.unknownPath):
 * what each kind of API rejection answers. Applied once, to the finished response, so
 * that every layer before it (the 405 check above all) sees the simulator's own status.
 */
import type { Context } from 'hono';
import { REJECTION_KINDS } from '../../src/generated/lists.ts';
import { envelopeTime } from './envelope.ts';
import type { Engine, SimulatorError } from '../engine/index.ts';
import type { ErrorCatalogueKind } from '../engine/settings.ts';
import type { SimEnv } from './context.ts';

/** The kinds spec/control.yaml's ErrorCatalogue names. */
const CATALOGUED: ReadonlySet<string> = new Set<ErrorCatalogueKind>(REJECTION_KINDS);

/**
 * The catalogue's name for a rejection, or undefined for kinds it does not cover.
 *
 * @example
 *   catalogueKindOf(new SimulatorError('apiKeyMissing', '…')); // 'apiKeyMissing'
 */
export function catalogueKindOf(error: SimulatorError): ErrorCatalogueKind | undefined {
  if (error.reason === 'belowMinimum') return 'belowMinimum';
  return CATALOGUED.has(error.kind) ? (error.kind as ErrorCatalogueKind) : undefined;
}

const HTML_404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n</body>\r\n</html>\r\n';

/**
 * Rewrites the finished answer of an API request by the catalogue; leaves the control
 * plane and injected faults alone (a fault answers exactly as it was told).
 *
 * @example
 *   app.use('*', async (c, next) => { await next(); applyErrorCatalogue(c, engine); });
 */
export function applyErrorCatalogue(c: Context<SimEnv>, engine: Engine): void {
  if (c.req.path.startsWith('/_sim') || c.get('fault')) return;
  const settings = engine.settings();
  const kind = c.get('rejection');
  if (kind === 'notFound' && settings.unknownPath === 'html') {
    c.set('responseBody', HTML_404);
    c.res = new Response(HTML_404, { status: 404, headers: { 'content-type': 'text/html' } });
    return;
  }
  const entry = kind ? settings.errors[kind] : undefined;
  const always200 = settings.errorStatus === 'always-200';
  if (!entry) {
    if (c.res.status >= 400 && always200)
      c.res = new Response(c.res.body, { status: 200, headers: c.res.headers });
    return;
  }
  const own = c.get('responseBody') as { code: number; msg: string } | undefined;
  const body = {
    code: entry.code ?? own?.code ?? c.res.status,
    msg: entry.msg !== undefined ? entry.msg.split('{message}').join(own?.msg ?? '') : (own?.msg ?? ''),
    time: envelopeTime(engine),
    data: null,
  };
  c.set('responseBody', body);
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  c.res = new Response(JSON.stringify(body), {
    status: entry.status ?? (always200 ? 200 : c.res.status),
    headers,
  });
}
