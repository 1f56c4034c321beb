/** The TRON node's reads (spec/tron-node.yaml) passed to a real node or a recording; a write never leaves. */
import type { MiddlewareHandler } from 'hono';
import { NODE_OPERATIONS } from '../../src/generated/lists.ts';
import { SimulatorError } from '../engine/index.ts';
import type { SimContext, SimEnv } from './context.ts';
import { methodNotAllowed } from './error-catalogue.ts';
import { secretPairValues, type KeyAliases } from './journal-redaction.ts';
import { answerFromRecording, type ReplayFetch } from './recording-source.ts';
import { asSent, bodyOf } from './request-body.ts';
import { addKeys, forwardSent, passOn, type UpstreamOptions } from './upstream-forward.ts';

/** What answers a read of the node's subset once allowed: the node, or the recording. */
export type NodeAnswer = (c: SimContext) => Promise<Response>;

/** The request headers a node is sent. */
const NODE_HEADERS = ['tron-pro-api-key', 'content-type', 'accept'];
/** java-tron's HTTP namespaces: the full node's, the confirmed (solidity) and PBFT views. */
const NODE_NAMESPACE = /^\/(wallet|walletsolidity|walletpbft)(\/|$)/;
/** Each allowed path, with its methods' operation ids. */
const ALLOWED = new Map<string, Map<string, string>>();
for (const [id, { method, path }] of Object.entries(NODE_OPERATIONS))
  ALLOWED.set(path, (ALLOWED.get(path) ?? new Map<string, string>()).set(method, id));

/**
 * The step of the node's namespaces: an allowed read goes to `answer`, anything else is a 404 or 405.
 *
 * @example
 *   app.use(tronNodeForward(nodeForwarder(upstream, aliases, counters)));
 */
export function tronNodeForward(answer: NodeAnswer): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    const { path } = asSent(c);
    if (!NODE_NAMESPACE.test(path) && !NODE_NAMESPACE.test(c.req.path)) return next();
    const methods = ALLOWED.get(path);
    const operation = methods?.get(c.req.method);
    if (operation === undefined) {
      const rule = `only the TRON node's reads of spec/tron-node.yaml are passed on, by their documented method and path; ${c.req.method} ${path} was not`;
      c.set('refused', rule);
      if (methods) throw methodNotAllowed(c.req.method, path, [...methods.keys()]);
      throw new SimulatorError(
        'notFound',
        `No such path: ${rule} (a broadcast or any other write never is). The reads: ${[...ALLOWED.keys()].join(', ')}.`,
      );
    }
    c.set('operation', operation);
    return answer(c);
  };
}

/**
 * The node as the answer of its reads (`--tron-node URL`), on the API's forwarder.
 *
 * @example
 *   nodeForwarder({ url: 'https://api.trongrid.io', timeoutMs: 10_000 }, aliases, counters);
 */
export function nodeForwarder(
  node: UpstreamOptions,
  aliases: KeyAliases,
  counters: { forwarded: number },
): NodeAnswer {
  return async (c) => {
    addKeys(c, aliases, [c.req.header('tron-pro-api-key') ?? '', ...secretPairValues(asSent(c).query ?? '')]);
    const bytes = c.req.method === 'POST' ? bodyOf(c) : undefined;
    counters.forwarded++;
    const options = { ...node, headers: NODE_HEADERS, flag: '--tron-node' };
    const body = bytes && bytes.byteLength > 0 ? new Uint8Array(bytes) : undefined;
    return passOn((await forwardSent(c, options, body)).response);
  };
}

/**
 * The recording as the answer of the node's reads (`serve --replay FILE`).
 *
 * @example
 *   nodeReplay((request) => replay.transport(request, LIVE_CASE, LIVE_CASE));
 */
export function nodeReplay(replay: ReplayFetch): NodeAnswer {
  return async (c) => {
    const type = c.req.header('content-type');
    const headers = type === undefined ? undefined : { 'content-type': type };
    const body = c.req.method === 'POST' ? new Uint8Array(bodyOf(c)) : undefined;
    return answerFromRecording(c, replay, new Request(c.req.url, { method: c.req.method, headers, body }));
  };
}
