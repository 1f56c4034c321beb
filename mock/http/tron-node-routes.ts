/**
 * The TRON full node's reads (spec/tron-node.yaml) under java-tron's paths and in its ways
 * (`visible`, zero fields left out, failures as 200 `{ "Error": … }`), from the engine.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { NODE_OPERATIONS } from '../../src/generated/lists.ts';
import { isTronAddress, tronAddressFromHex, tronAddressToHex } from '../../src/tron-address.ts';
import {
  blockAt,
  callUsdt,
  chainAccountAt,
  chainOf,
  delegatedAt,
  energyOf,
  stakeOf,
  type Chain,
  type ChainAccount,
  type Engine,
  type UsdtCall,
} from '../engine/index.ts';
import type { SimContext, SimEnv } from './context.ts';
import { sendJson } from './api-operations.ts';
import { textOf } from './request-body.ts';
import { injectFaults, type FaultInjector } from './fault-injector.ts';

/** What one request asks, read from its query and JSON body. */
interface NodeRequest {
  fields: Record<string, unknown>;
  visible: boolean;
  /** The time the answer is of: now, or the confirmed view's. */
  at: number;
  chain: Chain;
}

/** A failure java-tron answers in the body: `class <exception> : <message>`. */
class NodeError extends Error {
  constructor(exception: string, message: string) {
    super(`class ${exception} : ${message}`);
  }
}

const BAD_HEX = 'org.bouncycastle.util.encoders.DecoderException';
const BAD_BASE58 = 'java.lang.IllegalArgumentException';
const BAD_JSON = 'org.tron.json.JSONException';
/** Values java-tron shows that no setting changes (x-unverified). */
const WINDOW_MS = 28_800_000;
const FREE_NET_LIMIT = 600;
const TOTAL_NET_LIMIT = 43_200_000_000;
const TOTAL_NET_WEIGHT = 26_000_000_000;
const WITNESS = '41' + '5ca312ed563912c14e9a5623cd0bfe82c997f997';

/** An object without its zero numbers: java-tron leaves a field that is zero out. */
function nonZero<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === 0 || value[key] === undefined) delete value[key];
  return value;
}

/**
 * Builds the node's routes, one per operation of spec/tron-node.yaml (mounted at `/`).
 *
 * @example
 *   app.route('/', tronNodeRoutes(engine, faults));
 */
export function tronNodeRoutes(engine: Engine, faults: FaultInjector): Hono<SimEnv> {
  const node = new Hono<SimEnv>();
  const fault = injectFaults(faults, engine, () => 'tronNode');
  for (const [operationId, { method, path }] of Object.entries(NODE_OPERATIONS)) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    const answer = ANSWERS[name];
    if (!answer) throw new Error(`tron-node-routes: no answer for ${path} (spec/tron-node.yaml)`);
    const named: MiddlewareHandler<SimEnv> = (c, next) => {
      c.set('operation', operationId);
      return next();
    };
    node.on(method, path, named, fault, (c) => {
      try {
        const request = readRequest(c, engine, path.startsWith('/walletsolidity/'));
        return sendJson(c, answer(engine, request, c));
      } catch (error) {
        if (error instanceof NodeError) return sendJson(c, { Error: error.message });
        throw error;
      }
    });
  }
  return node;
}

function readRequest(c: Context<SimEnv>, engine: Engine, confirmed: boolean): NodeRequest {
  const fields: Record<string, unknown> = Object.fromEntries(new URL(c.req.url).searchParams);
  const text = c.req.method === 'POST' ? textOf(c) : '';
  if (text.trim() !== '') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new NodeError(BAD_JSON, `the body is not JSON: ${(error as Error).message}`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new NodeError(BAD_JSON, 'the body must be a JSON object');
    Object.assign(fields, body);
  }
  const chain = chainOf(engine.settings());
  const now = engine.clock.now();
  return {
    fields,
    visible: fields.visible === true || fields.visible === 'true',
    at: confirmed ? now - chain.confirmationMs : now,
    chain,
  };
}

/** The Base58Check address of a field, read in the form `visible` names; undefined when absent. */
function addressOf(request: NodeRequest, field: string): string | undefined {
  const value = request.fields[field];
  if (value === undefined || value === '') return undefined;
  const text = String(value);
  if (request.visible) {
    if (!isTronAddress(text))
      throw new NodeError(
        BAD_BASE58,
        `'${field}' must be a Base58Check TRON address when visible is true (got '${text}')`,
      );
    return text;
  }
  if (!/^([0-9a-fA-F]{2})*$/.test(text))
    throw new NodeError(
      BAD_HEX,
      `exception decoding Hex string: '${field}' must be hex (41 and 20 bytes) when visible is false (got '${text}')`,
    );
  return tronAddressFromHex(text);
}

/** An address as the answer shows it: Base58Check when visible, else hex. */
const shown = (request: NodeRequest, address: string): string =>
  request.visible ? address : tronAddressToHex(address);
const shownText = (request: NodeRequest, text: string): string =>
  request.visible ? text : Buffer.from(text, 'utf8').toString('hex');

/**
 * The account of a field at the request's time, undefined while it does not exist; notes for
 * coverage what it shows: energy delegated, or none left after a delegation.
 */
function accountOf(
  engine: Engine,
  request: NodeRequest,
  field: string,
  c: SimContext,
): ChainAccount | undefined {
  const address = addressOf(request, field);
  if (address === undefined) return undefined;
  // Only the pool lends: any other address needs the delegations to it alone.
  const delegations = engine.delegations(address === request.chain.poolAddress ? undefined : address);
  const account = chainAccountAt(engine.address(address), delegations, request.chain, request.at);
  if (account?.received.length) c.set('chain', 'delivered');
  else if (account?.ended.length) c.set('chain', 'expired');
  return account;
}

type Answer = (engine: Engine, request: NodeRequest, c: Context<SimEnv>) => unknown;

const ANSWERS: Record<string, Answer> = {
  getaccount(engine, request, c) {
    const account = accountOf(engine, request, 'address', c);
    if (!account) return {};
    return {
      address: shown(request, account.address),
      create_time: account.createTime,
      net_window_size: WINDOW_MS,
      account_resource: nonZero({
        energy_window_size: WINDOW_MS,
        delegated_frozenV2_balance_for_energy: stakeOf(account.lent),
        acquired_delegated_frozenV2_balance_for_energy: stakeOf(account.received),
      }),
      frozenV2: [{}, { type: 'ENERGY' }, { type: 'TRON_POWER' }],
    };
  },
  getaccountresource(engine, request, c) {
    const account = accountOf(engine, request, 'address', c);
    if (!account) return {};
    return nonZero({
      freeNetLimit: FREE_NET_LIMIT,
      EnergyLimit: energyOf(stakeOf(account.received), request.chain),
      TotalNetLimit: TOTAL_NET_LIMIT,
      TotalNetWeight: TOTAL_NET_WEIGHT,
      TotalEnergyLimit: request.chain.chainParameters.getTotalEnergyLimit,
      TotalEnergyWeight: request.chain.totalEnergyWeight,
    });
  },
  getdelegatedresourcev2(engine, request, c) {
    const from = addressOf(request, 'fromAddress');
    const account = accountOf(engine, request, 'toAddress', c);
    // One record per pair, as java-tron keeps it: the stakes summed, the latest end.
    const running = account?.received.filter((d) => d.from === from) ?? [];
    if (running.length === 0) return {};
    const resource = nonZero({
      from: shown(request, from!),
      to: shown(request, account!.address),
      frozen_balance_for_energy: stakeOf(running),
      expire_time_for_energy: Math.max(...running.map((d) => d.expiresAt)),
    });
    return { delegatedResource: [resource] };
  },
  getdelegatedresourceaccountindexv2(engine, request) {
    const address = addressOf(request, 'value');
    if (address === undefined) return {};
    const at = request.at;
    const running = engine.delegations().filter((d) => delegatedAt(d, at));
    const from = [...new Set(running.filter((d) => d.to === address).map((d) => d.from))];
    const to = [...new Set(running.filter((d) => d.from === address).map((d) => d.to))];
    const index: Record<string, unknown> = { account: shown(request, address) };
    if (from.length > 0) index.fromAccounts = from.map((a) => shown(request, a));
    if (to.length > 0) index.toAccounts = to.map((a) => shown(request, a));
    return index;
  },
  getchainparameters: (_engine, request) => ({
    chainParameter: Object.entries(request.chain.chainParameters).map(([key, value]) =>
      nonZero({ key, value }),
    ),
  }),
  getnowblock(_engine, request) {
    const block = blockAt(request.at);
    return {
      blockID: block.blockID,
      block_header: {
        raw_data: nonZero({
          number: block.number,
          txTrieRoot: '0'.repeat(64),
          witness_address: request.visible ? tronAddressFromHex(WITNESS) : WITNESS,
          parentHash: block.parentHash,
          version: 31,
          timestamp: block.timestamp,
        }),
        witness_signature: block.blockID.repeat(2).slice(0, 130),
      },
    };
  },
  triggerconstantcontract(engine, request) {
    const call = contractCall(request);
    if ('result' in call) return call;
    const run = callUsdt(request.chain, call.usdt);
    const transaction = transactionOf(engine, request, call.data);
    if (run.reverted)
      return {
        result: { result: true, message: shownText(request, 'REVERT opcode executed') },
        constant_result: [''],
        transaction: { ...transaction, ret: [{ ret: 'FAILED' }] },
      };
    return nonZero({
      result: { result: true },
      energy_used: run.energy,
      constant_result: [run.output],
      transaction,
    });
  },
  estimateenergy(_engine, request) {
    const call = contractCall(request);
    if ('result' in call) return call;
    const run = callUsdt(request.chain, call.usdt);
    if (run.reverted)
      return {
        result: {
          code: 'OTHER_ERROR',
          message: shownText(
            request,
            'class org.tron.core.exception.ContractExeException : REVERT opcode executed',
          ),
        },
      };
    return { result: { result: true }, energy_required: run.energy };
  },
};

const SELECTORS: Record<string, string> = {
  'balanceOf(address)': '70a08231',
  'transfer(address,uint256)': 'a9059cbb',
};

/** The USDT call a contract request makes, or the `result` java-tron answers when it cannot run. */
function contractCall(
  request: NodeRequest,
): { usdt: UsdtCall; data: string } | { result: { code: string; message: string } } {
  const refuse = (code: string, message: string) => ({
    result: { code, message: shownText(request, message) },
  });
  let owner: string | undefined;
  let contract: string | undefined;
  try {
    owner = addressOf(request, 'owner_address');
    contract = addressOf(request, 'contract_address');
  } catch (error) {
    return refuse('OTHER_ERROR', (error as Error).message);
  }
  if (owner === undefined)
    return refuse('OTHER_ERROR', `class ${BAD_BASE58} : 'owner_address' must name the calling account`);
  if (contract !== request.chain.usdtContract)
    return refuse('CONTRACT_VALIDATE_ERROR', 'Smart contract is not exist.');
  const { function_selector: selector, parameter, data } = request.fields;
  const text =
    typeof selector === 'string'
      ? (SELECTORS[selector.replace(/\s+/g, '')] ?? 'ffffffff') + String(parameter ?? '')
      : String(data ?? '');
  const words = /^([0-9a-fA-F]{8})((?:[0-9a-fA-F]{64})*)$/.exec(text);
  const word = (i: number): string => words?.[2]?.slice(i * 64, i * 64 + 64) ?? '';
  const addressWord = (i: number): string | undefined =>
    /^0{24}/.test(word(i)) ? tronAddressFromHex('41' + word(i).slice(24)) : undefined;
  const fn = words?.[1]?.toLowerCase();
  let usdt: UsdtCall = { fn: 'other' };
  const holder = addressWord(0);
  if (fn === SELECTORS['balanceOf(address)'] && holder) usdt = { fn: 'balanceOf', holder };
  if (fn === SELECTORS['transfer(address,uint256)'] && holder && word(1))
    usdt = { fn: 'transfer', owner, to: holder, amount: BigInt(`0x${word(1)}`) };
  return { usdt, data: text.toLowerCase() };
}

/** The unsigned transaction java-tron shows beside a constant call (context only; never signed). */
function transactionOf(engine: Engine, request: NodeRequest, data: string): Record<string, unknown> {
  const block = blockAt(engine.clock.now());
  const value = {
    data,
    owner_address: shown(request, addressOf(request, 'owner_address')!),
    contract_address: shown(request, request.chain.usdtContract),
  };
  return {
    ret: [{}],
    visible: request.visible,
    txID: block.blockID.slice(16) + data.slice(0, 16).padEnd(16, '0'),
    raw_data: {
      contract: [
        {
          parameter: { value, type_url: 'type.googleapis.com/protocol.TriggerSmartContract' },
          type: 'TriggerSmartContract',
        },
      ],
      ref_block_bytes: block.blockID.slice(12, 16),
      ref_block_hash: block.blockID.slice(16, 32),
      expiration: block.timestamp + 60_000,
      timestamp: engine.clock.now(),
    },
  };
}
