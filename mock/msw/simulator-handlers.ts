/** `energy-rental-kit/msw`: MSW 2 handlers that answer the real base URL from an in-process simulator. */
import { http, HttpResponse, type HttpHandler } from 'msw';
import { createSimulator, type Simulator } from '../simulator.ts';

/** Where the real service lives. */
export const REAL_BASE_URL = 'https://api.eopen.io/api';

/** Options of {@link simulatorHandlers}. */
export interface SimulatorHandlersOptions {
  /** The base URL whose requests the simulator answers. Default: the real service's. */
  baseUrl?: string;
}

/**
 * Handlers for every request under `baseUrl`, the control plane (`/_sim`) included.
 *
 * @example
 *   import { setupServer } from 'msw/node';
 *   import { createSimulator } from 'energy-rental-kit/simulator';
 *   import { simulatorHandlers } from 'energy-rental-kit/msw';
 *   const sim = createSimulator({ clock: 'manual' });
 *   const server = setupServer(...simulatorHandlers(sim));
 *   server.listen(); // fetch('https://api.eopen.io/api/v1/tron/price?…') now reaches sim
 */
export function simulatorHandlers(
  sim: Simulator = createSimulator(),
  options: SimulatorHandlersOptions = {},
): HttpHandler[] {
  const baseUrl = options.baseUrl ?? REAL_BASE_URL;
  if (!URL.canParse(baseUrl)) {
    throw new TypeError(
      `simulatorHandlers: baseUrl must be an absolute URL such as '${REAL_BASE_URL}' (got '${baseUrl}').`,
    );
  }
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  return [
    http.all(`${base.origin}${prefix}/*`, async ({ request }) => {
      const url = new URL(request.url);
      // The simulator serves /v1/... and /_sim/... at its root: the base path goes.
      const target = `http://simulator${url.pathname.slice(prefix.length) || '/'}${url.search}`;
      try {
        return await sim.fetch(new Request(target, request));
      } catch (error) {
        // An injected connection drop (a `drop` fault) rejects the caller's fetch, as a real one does.
        if (error instanceof TypeError) return HttpResponse.error();
        throw error;
      }
    }),
  ];
}
