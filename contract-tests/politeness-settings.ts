/**
 * How politely the suite talks to a target that is not a simulator: the pace, the retries of
 * a rate-limited call and their caps. Read once per worker from the variables behind the
 * `contract` and `record` flags (spec/cli.yaml).
 */
import { envFlag } from '../src/env-flag.ts';
import { CLI_COMMANDS } from '../src/generated/cli.ts';

export interface Politeness {
  /** Most requests a second of the whole run, every worker together; 0 turns the pace off. */
  maxRps: number;
  /** Most times one call is sent again after a 429. */
  retries: number;
  /** The longest single wait before a retry, ms: a longer Retry-After gives up instead. */
  waitMaxMs: number;
  /** The most one call waits for its retries altogether, ms. */
  waitTotalMs: number;
  /** Whether a createOrder that got a 429 may be sent again (same outOrderNo). */
  retryOrders: boolean;
  /** What the target does with a repeated outOrderNo, when known. */
  duplicateOutOrderNo?: 'return-existing' | 'reject';
}

const OPTIONS = CLI_COMMANDS.contract.options;
const DUPLICATE_CHOICES = ['return-existing', 'reject'] as const;

/**
 * Reads the politeness settings; `inProcess` picks the pace's default (none in-process, where
 * the kit's own stand-ins need no manners). Throws an Error naming the variable and the rule.
 *
 * @example
 *   readPoliteness({ CONTRACT_MAX_RPS: '2' }, false).maxRps; // 2
 */
export function readPoliteness(env: NodeJS.ProcessEnv, inProcess: boolean): Politeness {
  const number = (flag: 'max-rps' | 'retries' | 'retry-wait-max' | 'retry-wait-total', fallback: number) => {
    const name = OPTIONS[flag].env;
    const text = env[name]?.trim();
    if (!text) return fallback;
    const whole = flag === 'retries';
    if (!(whole ? /^\d+$/ : /^\d+(\.\d+)?$/).test(text))
      throw new Error(
        `${name} must be ${whole ? 'a whole number' : 'a number of 0 or more'} (got '${text}').`,
      );
    return Number(text);
  };
  const settings: Politeness = {
    maxRps: number('max-rps', inProcess ? 0 : 4),
    retries: number('retries', Number(OPTIONS.retries.default)),
    waitMaxMs: 1000 * number('retry-wait-max', Number(OPTIONS['retry-wait-max'].default)),
    waitTotalMs: 1000 * number('retry-wait-total', Number(OPTIONS['retry-wait-total'].default)),
    retryOrders: envFlag(env, OPTIONS['retry-orders'].env),
  };
  const duplicateEnv = OPTIONS['duplicate-out-order-no'].env;
  const duplicate = env[duplicateEnv]?.trim();
  if (duplicate) {
    if (!(DUPLICATE_CHOICES as readonly string[]).includes(duplicate))
      throw new Error(`${duplicateEnv} must be ${DUPLICATE_CHOICES.join(' or ')} (got '${duplicate}').`);
    settings.duplicateOutOrderNo = duplicate as (typeof DUPLICATE_CHOICES)[number];
  }
  if (settings.retryOrders && settings.duplicateOutOrderNo !== 'return-existing') {
    throw new Error(
      `${OPTIONS['retry-orders'].env}=1 retries an order only on a target known to answer a repeated outOrderNo with the existing order: set ${duplicateEnv}=return-existing (what 'calibrate' learnt as duplicateOutOrderNo), or drop ${OPTIONS['retry-orders'].env}.`,
    );
  }
  return settings;
}

/**
 * Whether a run may wait to be polite, known before any worker connects: then the suite times
 * a case without its waits (contract-test.ts). A 429 can come from any stand-in too.
 *
 * @example
 *   mayWaitPolitely({ CONTRACT_BASE_URL: 'https://api.eopen.io/api' }); // true
 */
export function mayWaitPolitely(env: NodeJS.ProcessEnv): boolean {
  if (env.CONTRACT_REPLAY?.trim()) return false;
  const inProcess = !env.CONTRACT_BASE_URL?.trim();
  const rps = env[OPTIONS['max-rps'].env]?.trim();
  const retries = env[OPTIONS.retries.env]?.trim();
  const paced = rps ? Number(rps) > 0 : !inProcess;
  const retrying = !retries || Number(retries) > 0;
  return paced || (retrying && (!inProcess || Boolean(env.CONTRACT_VARIANT)));
}
