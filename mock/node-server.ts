/**
 * Serves a simulator over Node's HTTP: the fast path for the API's happy path first, the Hono app for
 * everything else. Used by the CLI and by startSimulator().
 */
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createNodeFastPath } from './http/node-fast-path.ts';
import type { Simulator } from './simulator.ts';

/**
 * Creates (does not start) the HTTP server of a simulator.
 *
 * @example
 *   const server = createSimulatorServer(createSimulator());
 *   server.listen(8787, '127.0.0.1');
 */
export function createSimulatorServer(sim: Simulator): Server {
  const fast = createNodeFastPath(sim);
  const hono = getRequestListener(sim.app.fetch);
  return createServer((req, res) => {
    if (!fast(req, res)) void hono(req, res);
  });
}
