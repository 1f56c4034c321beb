/**
 * A Node-only fast path for the happy path of the API: GET price, history and account, and POST order, with a
 * known key, plain valid parameters, no fault and no rate limit in force. It uses the same validators, engine
 * and response builders as the Hono routes and writes the same journal entry, but skips building a WHATWG
 * Request and Response, most of a request's cost in the CPU profile (and, for an order, the stream that
 * carries its body; bench/README.md, "Figures behind the code"). The JSON of a read's data is kept until the
 * engine changes anything (read-data-cache.ts).
 *
 * A read it does not take answers `false` before anything happened, and the caller hands
 * the request to the Hono listener. An order is taken or left as soon as its headers are
 * known; once its body is read, a rejection is replayed through the Hono app with that
 * body, so every error is worded by the one `onError` (the engine changes nothing when it
 * rejects an order, so nothing is done twice).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import { API_OPERATION_IDS } from '../../src/generated/lists.ts';
import type { SpecValidators } from '../../src/spec/loader.ts';
import { SimulatorError, type Account, type Engine } from '../engine/index.ts';
import { findApiOperation, withoutApiPrefix, type ApiOperation, type ApiParams } from './api-operations.ts';
import { allIdle, type ApiStage } from './api-stages.ts';
import type { SimEnv } from './context.ts';
import { envelopeText } from './envelope.ts';
import {
  CLIENT_CLOSED_NOTE,
  CLIENT_CLOSED_STATUS,
  createErrorBoundary,
  type ErrorBoundary,
} from './error-boundary.ts';
import { exchangeEntry, JOURNAL_BODY_LIMIT, type Exchange, type Journal } from './journal.ts';
import { redactBody } from './journal-redaction.ts';
import { addPlainPairs } from './plain-pairs.ts';
import { createReadDataCache } from './read-data-cache.ts';
import { routableHost } from './request-origin.ts';
import { passes } from './validate.ts';

export interface FastPathContext {
  engine: Engine;
  journal: Journal;
  /** The stages the Hono routes run before each operation; the fast path answers only while all are idle. */
  apiStages: readonly ApiStage[];
  apiValidators: SpecValidators;
  /** Answers what the fast path leaves after reading a body. */
  app: Pick<Hono<SimEnv>, 'fetch'>;
  /** Largest request body accepted, bytes (the app's limit). */
  maxBodyBytes: number;
  /** Reports unexpected errors, as the app's `onError` does. */
  onUnexpectedError?: ((error: unknown) => void) | undefined;
}

type Params = Record<string, unknown>;
const FORM = 'application/x-www-form-urlencoded';

/**
 * Creates the fast path; it answers true when it took the request.
 *
 * @example
 *   const fast = createNodeFastPath(sim); // a Simulator has every field of the context
 *   http.createServer((req, res) => fast(req, res) || honoListener(req, res));
 */
export function createNodeFastPath(
  ctx: FastPathContext,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { engine, journal } = ctx;
  const boundary = createErrorBoundary(ctx);
  const cache = createReadDataCache(engine);
  const validators = Object.fromEntries(
    API_OPERATION_IDS.map((id) => [id, ctx.apiValidators.request(id)]),
  ) as Record<ApiOperation['id'], ReturnType<SpecValidators['request']>>;

  /** The operation's answer on checked parameters, or undefined when the engine rejects it (which changed nothing). */
  function run(
    op: ApiOperation,
    account: Account,
    params: Params,
  ): ReturnType<ApiOperation['answer']> | undefined {
    try {
      return (
        op.answer as (
          engine: Engine,
          account: Account,
          params: ApiParams[keyof ApiParams],
        ) => ReturnType<ApiOperation['answer']>
      )(engine, account, params as never);
    } catch (error) {
      if (error instanceof SimulatorError) return undefined;
      throw error;
    }
  }

  // Per connection, the last key it sent and that key's account: a keep-alive client sends
  // the same key with every request, and hashing it showed in a read's profile
  // (bench/README.md). Comparing a key
  // with what the same connection sent before tells nothing about anyone else's key. A
  // reset replaces every account, so it starts the cache afresh.
  let accountsEpoch = 0;
  engine.subscribe((event) => {
    if (event.type === 'reset') accountsEpoch++;
  });
  const lastKey = new WeakMap<object, { key: string; account: Account; epoch: number }>();
  function knownAccount(req: IncomingMessage): Account | undefined {
    const key = req.headers['api-key'];
    if (typeof key !== 'string' || key === '') return undefined;
    const last = lastKey.get(req.socket);
    if (last !== undefined && last.key === key && last.epoch === accountsEpoch) return last.account;
    const account = engine.authenticate(key);
    if (account && req.socket) lastKey.set(req.socket, { key, account, epoch: accountsEpoch });
    return account;
  }

  /** The success envelope, written and journaled as the Hono routes and middleware do. */
  function answer(
    res: ServerResponse,
    exchange: Exchange,
    rawQuery: string | undefined,
    msg: string,
    dataText: string,
    code = 0,
  ): void {
    const text = envelopeText(engine, msg, dataText, code);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    // The text, not the object: the journal keeps one string instead of an object graph.
    journal.record(exchangeEntry(exchange), { query: rawQuery, responseText: text });
  }

  function serveRead(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    q: number,
    op: ApiOperation,
    rawPath: string,
  ): boolean {
    // A body on a read is Hono's to refuse (413 when over the limit).
    if (req.headers['content-length'] !== undefined) return false;
    const started = performance.now();
    const account = knownAccount(req);
    if (!account) return false;
    const params: Params = {};
    const rawQuery = q !== -1 ? url.slice(q + 1) : undefined;
    if (rawQuery !== undefined && !addPlainPairs(rawQuery, params as Record<string, string>)) return false;
    if (!passes(validators[op.id], params)) return false;
    // A rejection (an unknown order) is Hono's to word; nothing happened yet.
    const result = run(op, account, params);
    if (!result) return false;
    // The operation's own string when it is the same path: the journal keeps no copy per request.
    const journalPath = rawPath === op.path ? op.path : rawPath;
    answer(
      res,
      {
        at: engine.clock.now(),
        method: 'GET',
        path: journalPath,
        status: 200,
        started,
        operation: op.id,
        account: account.walletAddress,
      },
      rawQuery,
      result.msg,
      result.text(cache),
      result.code,
    );
    return true;
  }

  function serveOrder(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    q: number,
    op: ApiOperation,
    rawPath: string,
  ): boolean {
    // Taken only when the body's size is declared and within the limit, and it is a form
    // (or nothing): every other body is Hono's to read, limit and reject.
    const length = req.headers['content-length'];
    if (length === undefined || req.headers['transfer-encoding'] !== undefined) return false;
    const size = Number(length);
    if (!Number.isSafeInteger(size) || size > ctx.maxBodyBytes) return false;
    const type = req.headers['content-type'];
    if (size > 0 && (type === undefined || type.split(';', 1)[0]!.trim().toLowerCase() !== FORM))
      return false;
    const started = performance.now();
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      // Runs from the body's events, outside the server's listener: nothing may escape it.
      try {
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const text = body.toString('utf8');
        if (!createOrder(req, res, url, q, op, rawPath, text, started))
          void replay(ctx.app, req, res, body, boundary);
      } catch (error) {
        boundary.fail(req, res, error);
      }
    };
    // Node's parser delivers exactly Content-Length bytes, so the last one ends the body:
    // answering then, not at 'end', saves the stream another turn through its ticks.
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= size) finish();
    });
    req.on('end', finish);
    // The client went away mid-body: its doing, journaled as such, not reported as a bug.
    req.on('error', () => {
      if (done) return;
      done = true;
      journal.record({
        at: engine.clock.now(),
        method: 'POST',
        path: rawPath,
        status: CLIENT_CLOSED_STATUS,
        durationMs: 0,
        operation: 'createOrder',
        response: { note: CLIENT_CLOSED_NOTE },
      });
      res.destroy();
    });
    return true;
  }

  function createOrder(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    q: number,
    op: ApiOperation,
    rawPath: string,
    text: string,
    started: number,
  ): boolean {
    const account = knownAccount(req);
    if (!account) return false;
    // One object of query and body, as readParams merges them.
    const params: Params = {};
    const pairs = params as Record<string, string>;
    const rawQuery = q !== -1 ? url.slice(q + 1) : undefined;
    if (rawQuery !== undefined && !addPlainPairs(rawQuery, pairs)) return false;
    if (text.length > 0 && !addPlainPairs(text, pairs)) return false;
    if (!passes(validators[op.id], params)) return false;
    // A rejected order changed nothing (Engine.createOrder); the replay through Hono words the rejection.
    const result = run(op, account, params);
    if (!result) return false;
    const path = rawPath === op.path ? op.path : rawPath;
    const body = text.length > 0 ? redactBody(text).slice(0, JOURNAL_BODY_LIMIT) : undefined;
    answer(
      res,
      {
        at: engine.clock.now(),
        method: 'POST',
        path,
        status: 200,
        started,
        operation: op.id,
        account: account.walletAddress,
        body,
      },
      rawQuery,
      result.msg,
      JSON.stringify(result.data()),
      result.code,
    );
    return true;
  }

  return (req, res) => {
    const method = req.method;
    if ((method !== 'GET' && method !== 'POST') || !allIdle(ctx.apiStages)) return false;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q === -1 ? url : url.slice(0, q);
    const op = findApiOperation(method, withoutApiPrefix(rawPath));
    if (!op) return false;
    return method === 'GET'
      ? serveRead(req, res, url, q, op, rawPath)
      : serveOrder(req, res, url, q, op, rawPath);
  };
}

/**
 * Answers a request whose body the fast path has read through the Hono app, with that
 * body: the rejections are rare, and this keeps their wording in one place.
 */
async function replay(
  app: FastPathContext['app'],
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  boundary: ErrorBoundary,
): Promise<void> {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const request = new Request(`http://${routableHost(req)}${req.url ?? '/'}`, {
      method: req.method!,
      headers,
      body: new Uint8Array(body),
    });
    const response = await app.fetch(request, { incoming: req, outgoing: res });
    const answerBody = Buffer.from(await response.arrayBuffer());
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    out['content-length'] = String(answerBody.length);
    res.writeHead(response.status, out);
    res.end(answerBody);
  } catch (error) {
    // The app answers its own errors; a broken socket or a request that cannot be rebuilt lands here.
    boundary.fail(req, res, error);
  }
}
