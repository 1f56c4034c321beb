/**
 * Serves a simulator over Node's HTTP: the fast path for the API's happy path first, the Hono app for
 * everything else. Used by the CLI and by startSimulator().
 */
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createNodeFastPath } from './http/node-fast-path.ts';
import { createNodeRequestGuard, type RequestGuardOptions } from './http/request-guard.ts';
import type { Simulator } from './simulator.ts';

/**
 * Creates (does not start) the HTTP server of a simulator. `options` say which Host
 * names it answers besides localhost and IP addresses (see request-guard.ts).
 *
 * @example
 *   const server = createSimulatorServer(createSimulator(), { host: '127.0.0.1' });
 *   server.listen(8787, '127.0.0.1');
 */
export function createSimulatorServer(sim: Simulator, options: RequestGuardOptions = {}): Server {
  const fast = createNodeFastPath(sim);
  const hono = getRequestListener(sim.app.fetch);
  // Only a socket is reachable from a web page, so the Host and cross-site checks live
  // here, first, where neither the fast path nor the app can skip them.
  const refused = createNodeRequestGuard(sim.engine, options);
  return createServer((req, res) => {
    if (refused(req, res)) return;
    if (!fast(req, res)) void hono(req, res);
  });
}
