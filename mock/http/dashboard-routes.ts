/**
 * The live dashboard: the page at /_sim/ui, the snapshot it reads (/_sim/dashboard)
 * and the server-sent events that tell it when to read again (/_sim/events).
 */
import { Hono, type Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { components } from '../../src/generated/control.ts';
import type { Engine, EngineEvent, Order } from '../engine/index.ts';
import type { SimEnv } from './context.ts';
import type { ControlContext } from './control-routes.ts';
import { accountView, addressView, clockView, orderView, settingsView } from './control-views.ts';
import { dashboardAssets } from './dashboard/assets.ts';
import { sendJson } from './api-operations.ts';
import { readQuery } from './request-body.ts';
import { check } from './validate.ts';

type C = components['schemas'];
export type ChangeEvent = C['ChangeEvent'];

/** Journal entries, orders (unless `limit` says), and other items in a snapshot; `totals` counts all. */
const DASHBOARD_JOURNAL_LIMIT = 30;
const DASHBOARD_ORDER_LIMIT = 50;
export const DASHBOARD_LIST_LIMIT = 200;
/** At most one `change` event per this many milliseconds (about ten a second). */
export const EVENT_INTERVAL_MS = 100;
const HEARTBEAT_MS = 15_000;
const ASSET_HEADERS = {
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  // The page and its scripts come from this origin only and call only this origin.
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

/** The newest `limit` orders of every account, newest first. */
function recentOrders(engine: Engine, limit: number): C['DashboardOrder'][] {
  // Each account's list is newest first; its index breaks ties.
  const candidates: { order: Order; rank: number }[] = [];
  for (const account of engine.accounts()) {
    engine.orders(account, { limit }).forEach((order, rank) => candidates.push({ order, rank }));
  }
  candidates.sort((a, b) => b.order.createdAt - a.order.createdAt || a.rank - b.rank);
  return candidates
    .slice(0, limit)
    .map(({ order }) => ({ ...orderView(engine, order), walletAddress: order.account.walletAddress }));
}

/** The newest `limit` items of a list kept oldest first, newest first. */
const newest = <T>(items: readonly T[], limit: number): T[] => items.slice(-limit).reverse();

function dashboardSnapshot(ctx: ControlContext, orderLimit: number = DASHBOARD_ORDER_LIMIT): C['Dashboard'] {
  const { engine } = ctx;
  const mode = ctx.source.mode;
  // In front of a service or a recording the engine answers nothing: the journal shows the traffic.
  const engineShown = mode === 'simulator';
  const accounts = engineShown ? engine.accounts() : [];
  const addresses = engineShown ? engine.addresses() : [];
  const rules = engineShown ? engine.rules.list() : [];
  const faults = ctx.faults.list();
  return {
    mode,
    clock: clockView(engine),
    settings: settingsView(engine.settings()),
    supply: engine.supply(),
    accounts: newest(accounts, DASHBOARD_LIST_LIMIT).map(accountView),
    orders: engineShown ? recentOrders(engine, orderLimit) : [],
    addresses: newest(addresses, DASHBOARD_LIST_LIMIT).map(addressView),
    rules: rules.slice(0, DASHBOARD_LIST_LIMIT),
    faults: faults.slice(0, DASHBOARD_LIST_LIMIT),
    journal: ctx.journal.list({ limit: DASHBOARD_JOURNAL_LIMIT }).reverse(),
    totals: {
      accounts: accounts.length,
      orders: engineShown ? engine.storedOrders : 0,
      addresses: addresses.length,
      rules: rules.length,
      faults: faults.length,
      journal: ctx.journal.size,
    },
  };
}

/** The change event of an engine event; rules, supply and addresses come by the journal's event. */
function engineChange(event: EngineEvent): ChangeEvent | undefined {
  if (event.type === 'order') return { type: 'order', id: event.order.id };
  if (event.type === 'account') return { type: 'account', id: event.account.walletAddress };
  if (event.type === 'settings' || event.type === 'reset') return { type: event.type };
  return undefined;
}

// Within one throttle window one event goes out: the most significant change wins.
const WEIGHT: Record<ChangeEvent['type'], number> = {
  journal: 0,
  account: 1,
  order: 2,
  settings: 3,
  reset: 4,
};

/** Sends `change` events, at most one per EVENT_INTERVAL_MS; changes between sends collapse into one. */
async function pumpChanges(stream: SSEStreamingApi, ctx: ControlContext, signal: AbortSignal): Promise<void> {
  let pending: ChangeEvent | undefined;
  let wake = (): void => {};
  const offer = (change: ChangeEvent): void => {
    if (!pending || WEIGHT[change.type] >= WEIGHT[pending.type]) pending = change;
    wake();
  };
  const unsubscribe = [
    ctx.engine.subscribe((event) => {
      const change = engineChange(event);
      if (change) offer(change);
    }),
    ctx.journal.subscribe((entry) => offer({ type: 'journal', id: entry.id })),
  ];
  const stop = (): void => {
    for (const off of unsubscribe.splice(0)) off();
    wake();
  };
  /** Resolves after `ms`, or sooner at a change or when the client leaves. */
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  stream.onAbort(stop);
  signal.addEventListener('abort', stop, { once: true });
  try {
    // Sent at once, so a client sees the stream open before the first change.
    await stream.write(': connected\n\n');
    while (!signal.aborted && !stream.aborted && !stream.closed) {
      if (pending) {
        const data = JSON.stringify(pending);
        pending = undefined;
        await stream.writeSSE({ event: 'change', data });
        await new Promise((resolve) => setTimeout(resolve, EVENT_INTERVAL_MS));
      } else {
        await pause(HEARTBEAT_MS);
        // A heartbeat comment keeps proxies from closing an idle stream.
        if (!pending) await stream.write(': heartbeat\n\n');
      }
    }
  } finally {
    stop();
    signal.removeEventListener('abort', stop);
  }
}

/**
 * Builds the dashboard routes (mounted at /_sim).
 *
 * @example
 *   app.route('/_sim', dashboardRoutes(context));
 */
export function dashboardRoutes(ctx: ControlContext): Hono<SimEnv> {
  const routes = new Hono<SimEnv>();

  routes.get('/dashboard', async (c) => {
    c.set('operation', 'getDashboard');
    const query = check<{ limit?: number }>(ctx.queryValidators.request('getDashboard'), readQuery(c));
    return sendJson(c, dashboardSnapshot(ctx, query.limit ?? DASHBOARD_ORDER_LIMIT));
  });

  routes.get('/events', (c) => {
    c.set('operation', 'streamEvents');
    const signal = c.req.raw.signal;
    return streamSSE(c, (stream) => pumpChanges(stream, ctx, signal));
  });

  const assets = dashboardAssets();
  const sendAsset = (c: Context<SimEnv>, name: string): Response | undefined => {
    const asset = assets.get(name);
    return asset && c.body(asset.body, 200, { ...ASSET_HEADERS, 'Content-Type': asset.contentType });
  };

  routes.get('/ui', (c) => {
    c.set('operation', 'getDashboardPage');
    return sendAsset(c, 'index.html')!;
  });

  // The page's stylesheet and ES modules; index.html is reached only as /_sim/ui.
  routes.get('/ui/:file{[a-z][a-z0-9-]*\\.(?:css|js)}', (c) => {
    c.set('operation', 'getDashboardPage');
    return sendAsset(c, c.req.param('file')) ?? c.notFound();
  });

  return routes;
}
