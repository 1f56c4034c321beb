/** The control plane under /_sim: plain JSON, typed and validated by spec/control.yaml. */
import { Hono, type MiddlewareHandler } from 'hono';
import type { components } from '../../src/generated/control.ts';
import { FAULT_RESPONSES } from '../../src/generated/lists.ts';
import type { SpecValidators } from '../../src/spec/loader.ts';
import { isTronAddress } from '../../src/tron-address.ts';
import {
  parseUnits,
  SimulatorError,
  type Engine,
  type ManualClock,
  type OrderStatusCode,
} from '../engine/index.ts';
import { toSettingsPatch } from '../scenario/scenario-input.ts';
import { requireApiKey } from './engine-source.ts';
import {
  accountView,
  addressView,
  chainAddressView,
  clockView,
  orderView,
  settingsView,
} from './control-views.ts';
import type { SimEnv } from './context.ts';
import type { ResponseSource } from './create-app.ts';
import { requireMode, requireSettingsMode } from './control-modes.ts';
import { sendJson } from './api-operations.ts';
import type { CallCounts, CallFilter } from './call-counts.ts';
import type { FaultInjector } from './fault-injector.ts';
import type { Journal } from './journal.ts';
import { readJsonBody, readQuery } from './request-body.ts';
import { check } from './validate.ts';

type C = components['schemas'];
const COUNT_CRITERIA = ['operation', 'method', 'path', 'status', 'account'];

export interface ControlContext {
  engine: Engine;
  journal: Journal;
  faults: FaultInjector;
  validators: SpecValidators;
  queryValidators: SpecValidators;
  version: string;
  /** The starting scenario as the user gave it, for GET /_sim/scenario. */
  scenario: C['Scenario'];
  source: ResponseSource;
  /** False when the control plane is off: health advertises no capability. */
  controlEnabled: boolean;
  calls: CallCounts;
}

function amounts(input: C['Amounts'] | undefined): { trx?: number; usdt?: number } {
  const out: { trx?: number; usdt?: number } = {};
  if (input?.trx !== undefined) out.trx = parseUnits(input.trx, 'trx');
  if (input?.usdt !== undefined) out.usdt = parseUnits(input.usdt, 'usdt');
  return out;
}

function requireTronAddress(address: string): string {
  if (!isTronAddress(address)) {
    throw new SimulatorError(
      'parameterInvalid',
      `Path parameter 'address' must be a TRON address: 34 Base58Check characters starting with T (got '${address}').`,
    );
  }
  return address;
}

/**
 * Builds the control-plane routes (mounted at /_sim).
 *
 * @example
 *   app.route('/_sim', controlRoutes(context));
 */
export function controlRoutes(ctx: ControlContext): Hono<SimEnv> {
  const { engine, journal, validators, queryValidators } = ctx;
  const control = new Hono<SimEnv>();
  const auth = requireApiKey(engine);
  const { source } = ctx;
  const mode = source.mode;
  // Each route names its operation; one the spec does not list for this mode is refused here.
  const op =
    (operation: string): MiddlewareHandler<SimEnv> =>
    async (c, next) => {
      c.set('operation', operation);
      requireMode(operation, mode);
      await next();
    };
  const body = async <T>(c: Parameters<MiddlewareHandler<SimEnv>>[0], operationId: string): Promise<T> =>
    check<T>(validators.jsonBody(operationId), await readJsonBody(c), 'Field');
  const query = <T>(c: Parameters<MiddlewareHandler<SimEnv>>[0], operationId: string): T =>
    check<T>(queryValidators.request(operationId), readQuery(c));

  control.get('/health', op('getHealth'), (c) => {
    const capabilities: C['Capability'][] = [];
    if (ctx.controlEnabled && mode === 'simulator') {
      if (engine.clock.mode === 'manual') capabilities.push('clock');
      capabilities.push('rules', 'accounts', 'activation');
    }
    if (mode === 'simulator' && engine.settings().duplicateOutOrderNo === 'return-existing')
      capabilities.push('duplicates');
    const health: C['Health'] = {
      ok: true,
      simulator: 'energy-rental-kit',
      version: ctx.version,
      clock: engine.clock.mode,
      now: engine.clock.now(),
      timing: engine.settings().timing,
      capabilities,
      mode,
    };
    if (source.mode !== 'simulator') health.proxy = source.stats();
    return sendJson(c, health);
  });

  // The keys POST /accounts made since the last reset: with the scenario's, the only ones held.
  const madeKeys = new Map<string, string>();

  control.post('/reset', op('reset'), (c) => {
    engine.reset();
    madeKeys.clear();
    journal.clear();
    ctx.faults.reset();
    return sendJson(c, { ok: true });
  });

  control.get('/scenario', op('getScenario'), (c) => {
    const accounts = ctx.scenario.accounts?.map((a) => ({ ...a, apiKey: '[redacted]' }));
    return sendJson(c, { ...ctx.scenario, accounts });
  });

  control.get('/clock', op('getClock'), (c) => sendJson(c, clockView(engine)));
  control.post('/clock/advance', op('advanceClock'), async (c) => {
    const { ms } = await body<C['AdvanceRequest']>(c, 'advanceClock');
    if (engine.clock.mode !== 'manual') {
      throw new SimulatorError(
        'conflict',
        'The clock is real and cannot be advanced; start the simulator with --clock manual.',
      );
    }
    (engine.clock as ManualClock).advance(ms);
    return sendJson(c, clockView(engine));
  });

  control.get('/config', op('getConfig'), (c) => sendJson(c, settingsView(engine.settings())));
  control.patch('/config', op('updateConfig'), async (c) => {
    const patch = await body<C['SettingsPatch']>(c, 'updateConfig');
    requireSettingsMode(patch, mode);
    return sendJson(c, settingsView(engine.updateSettings(toSettingsPatch(patch))));
  });

  control.get('/accounts', op('listAccounts'), (c) =>
    sendJson(c, { accounts: engine.accounts().map(accountView) }),
  );
  control.post('/accounts', op('createAccount'), async (c) => {
    const input = await body<C['CreateAccountRequest']>(c, 'createAccount');
    const { apiKey, account } = engine.createAccount({
      ...amounts(input.balance),
      ...(input.apiKey !== undefined ? { apiKey: input.apiKey } : {}),
      ...(input.referralCount !== undefined ? { referralCount: input.referralCount } : {}),
    });
    c.set('account', account);
    madeKeys.set(account.walletAddress, apiKey);
    const created: C['CreatedAccount'] = { apiKey, name: account.name, walletAddress: account.walletAddress };
    return sendJson(c, created, 201);
  });
  // For the dashboard's Copy as curl: one account's key, asked for that account alone.
  control.get('/accounts/:address/key', op('getAccountKey'), (c) => {
    const address = requireTronAddress(c.req.param('address'));
    const apiKey = [madeKeys.get(address), ...(ctx.scenario.accounts ?? []).map((a) => a.apiKey)].find(
      (key) => key !== undefined && engine.authenticate(key)?.walletAddress === address,
    );
    if (!apiKey)
      throw new SimulatorError(
        'notFound',
        `No key held for account ${address}: the simulator holds the scenario's keys and those POST /_sim/accounts made, and of any other only its digest. Use the key the account was made with.`,
      );
    c.header('cache-control', 'no-store');
    return sendJson(c, { apiKey });
  });
  control.get('/accounts/me', op('getOwnAccount'), auth, (c) => sendJson(c, accountView(c.get('account'))));
  control.post('/accounts/me/deposit', op('deposit'), auth, async (c) => {
    const input = await body<C['Amounts']>(c, 'deposit');
    const parsed = amounts(input);
    if (!parsed.trx && !parsed.usdt)
      throw new SimulatorError(
        'parameterInvalid',
        'Deposit nothing? Send \'trx\' and/or \'usdt\' as positive decimal strings, e.g. { "trx": "50" }.',
      );
    return sendJson(c, accountView(engine.deposit(c.get('account'), parsed)));
  });

  control.get('/orders', op('listOrders'), auth, async (c) => {
    const { status, limit } = query<{ status?: OrderStatusCode; limit?: number }>(c, 'listOrders');
    const orders = engine.orders(c.get('account'), { limit: limit ?? 100, ...(status ? { status } : {}) });
    return sendJson(c, { orders: orders.map((o) => orderView(engine, o)) });
  });
  control.get('/orders/:orderId', op('getOrderTimeline'), auth, (c) => {
    const order = engine.findOrder(c.get('account'), { orderId: c.req.param('orderId') });
    return sendJson(c, orderView(engine, order));
  });

  control.get('/rules', op('listRules'), (c) => sendJson(c, { rules: engine.rules.list() }));
  control.post('/rules', op('addRule'), async (c) => {
    const input = await body<C['RuleRequest']>(c, 'addRule');
    const rule = engine.rules.add(input);
    return sendJson(c, { id: rule.id }, 201);
  });
  control.delete('/rules/:id', op('deleteRule'), (c) => {
    const id = c.req.param('id');
    if (!engine.rules.remove(id))
      throw new SimulatorError('notFound', `No rule '${id}'; GET /_sim/rules lists the rules in force.`);
    return sendJson(c, { ok: true });
  });

  control.get('/faults', op('listFaults'), (c) => sendJson(c, { faults: ctx.faults.list() }));
  control.post('/faults', op('injectFault'), async (c) => {
    const input = await body<C['FaultRequest']>(c, 'injectFault');
    if (input.response === undefined && !input.latencyMs && !input.latencyMaxMs && !input.latencyMedianMs) {
      throw new SimulatorError(
        'parameterInvalid',
        `A fault needs a 'response' (${FAULT_RESPONSES.join(', ')}), a 'latencyMs' above 0 or a 'latencyMedianMs'.`,
      );
    }
    if (
      input.latencyMedianMs !== undefined &&
      (input.latencyMs !== undefined || input.latencyMaxMs !== undefined)
    ) {
      throw new SimulatorError(
        'parameterInvalid',
        "Field 'latencyMedianMs' (a lognormal delay) goes without 'latencyMs' and 'latencyMaxMs' (a fixed delay or a range): choose one.",
      );
    }
    if (input.latencySigma !== undefined && input.latencyMedianMs === undefined) {
      throw new SimulatorError('parameterInvalid', "Field 'latencySigma' goes with 'latencyMedianMs'.");
    }
    for (const [field, response] of [
      ['withRetryAfter', 'status'],
      ['garbageBytes', 'garbage'],
      ['dripMs', 'drip'],
      ['dripChunks', 'drip'],
    ] as const) {
      if (input[field] !== undefined && input.response !== response)
        throw new SimulatorError('parameterInvalid', `Field '${field}' goes with "response": "${response}".`);
    }
    if (input.withRetryAfter === false && input.retryAfter !== undefined) {
      throw new SimulatorError(
        'parameterInvalid',
        "Field 'retryAfter' sets the Retry-After header that 'withRetryAfter: false' leaves out: send one of them.",
      );
    }
    if (input.latencyMaxMs !== undefined && input.latencyMaxMs < (input.latencyMs ?? 0)) {
      throw new SimulatorError(
        'parameterInvalid',
        `Field 'latencyMaxMs' must be at least 'latencyMs' (${input.latencyMs ?? 0}).`,
      );
    }
    if (input.response !== 'status' && (input.status !== undefined || input.withBody !== undefined)) {
      throw new SimulatorError(
        'parameterInvalid',
        'Fields \'status\' and \'withBody\' go with "response": "status".',
      );
    }
    return sendJson(c, { id: ctx.faults.add(input).id }, 201);
  });
  control.delete('/faults/:id', op('deleteFault'), (c) => {
    const id = c.req.param('id');
    if (!ctx.faults.remove(id))
      throw new SimulatorError('notFound', `No fault '${id}'; GET /_sim/faults lists the faults in force.`);
    return sendJson(c, { ok: true });
  });

  control.get('/supply', op('getSupply'), (c) => sendJson(c, engine.supply()));
  control.put('/supply', op('setSupply'), async (c) => {
    const { energy } = await body<{ energy: number | null }>(c, 'setSupply');
    return sendJson(c, engine.setSupply(energy));
  });

  control.get('/addresses', op('listAddresses'), (c) =>
    sendJson(c, { addresses: engine.addresses().map(addressView) }),
  );
  control.get('/addresses/:address', op('getAddress'), (c) => {
    const address = requireTronAddress(c.req.param('address'));
    return sendJson(c, { ...addressView(engine.address(address)), chain: chainAddressView(engine, address) });
  });
  control.put('/addresses/:address', op('setAddress'), async (c) => {
    const address = requireTronAddress(c.req.param('address'));
    const { activated } = await body<{ activated: boolean }>(c, 'setAddress');
    engine.setAddress(address, activated);
    return sendJson(c, addressView(engine.address(address)));
  });

  control.get('/calls', op('listCalls'), async (c) => {
    return sendJson(c, ctx.calls.list(query<{ limit?: number }>(c, 'listCalls').limit ?? 1000));
  });
  control.get('/calls/count', op('countCalls'), async (c) => {
    const checked = query<Record<string, unknown>>(c, 'countCalls');
    const filter: Record<string, unknown> & CallFilter = {};
    // Parameters are spelled params[name]=value (OpenAPI's deepObject), read here by hand.
    for (const [key, value] of Object.entries(readQuery(c))) {
      const name = /^params\[(.+)\]$/.exec(key)?.[1];
      if (name !== undefined) (filter.params ??= {})[name] = value;
      else if (COUNT_CRITERIA.includes(key)) filter[key] = checked[key];
      else if (key === 'params' || key.startsWith('params['))
        throw new SimulatorError(
          'parameterInvalid',
          `Query parameter '${key}' must name a parameter: params[period]=1h counts calls that sent period=1h.`,
        );
      // A misspelt criterion would count every call and pass a verification it should fail.
      else
        throw new SimulatorError(
          'parameterInvalid',
          `Unknown query parameter '${key}': a count filters by operation, method, path, status, account and params[name].`,
        );
    }
    return sendJson(c, ctx.calls.count(filter));
  });
  control.get('/calls/unmatched', op('getUnmatchedCalls'), (c) => sendJson(c, ctx.calls.unmatched()));
  control.get('/coverage', op('getCoverage'), (c) => sendJson(c, ctx.calls.coverage()));

  control.get('/journal', op('getJournal'), async (c) => {
    const { limit, operation } = query<{ limit?: number; operation?: string }>(c, 'getJournal');
    return sendJson(c, {
      entries: journal.list({ limit: limit ?? 100, ...(operation ? { operation } : {}) }),
    });
  });

  // Each list that a DELETE empties whole.
  for (const [path, operation, clear] of [
    ['/rules', 'clearRules', () => engine.rules.clear()],
    ['/faults', 'clearFaults', () => ctx.faults.clear()],
    ['/calls', 'clearCalls', () => ctx.calls.clearCalls()],
    ['/coverage', 'clearCoverage', () => ctx.calls.clearCoverage()],
    ['/journal', 'clearJournal', () => journal.clear()],
  ] as const)
    control.delete(path, op(operation), (c) => {
      clear();
      return sendJson(c, { ok: true });
    });

  return control;
}
