/**
 * How politely the suite talks to a target that is not a simulator: the pace, the
 * retries of a rate-limited call, and their caps. Read from the environment that the
 * `contract` and `record` flags set (the flag wins), once per worker.
 */
import { envFlag } from '../src/env-flag.ts';

export interface Politeness {
  /**
   * Most requests a second the whole run sends (every worker together); 0 turns the pace
   * off. Default 4 against a URL, 0 in-process (the kit's own stand-ins need no manners).
   */
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

export const POLITENESS_DEFAULTS = {
  maxRps: 4,
  retries: 4,
  waitMaxS: 30,
  waitTotalS: 60,
} as const;

/** The environment variables, by the flag that sets each. */
export const POLITENESS_ENV = {
  'max-rps': 'CONTRACT_MAX_RPS',
  retries: 'CONTRACT_RETRIES',
  'retry-wait-max': 'CONTRACT_RETRY_WAIT_MAX',
  'retry-wait-total': 'CONTRACT_RETRY_WAIT_TOTAL',
  'retry-orders': 'CONTRACT_RETRY_ORDERS',
  'duplicate-out-order-no': 'CONTRACT_DUPLICATE_OUT_ORDER_NO',
} as const;

const DUPLICATE_CHOICES = ['return-existing', 'reject'] as const;

/**
 * Checks a number setting, naming it and the rule on a mistake.
 *
 * @example
 *   numberSetting('CONTRACT_MAX_RPS', '2.5', { decimals: true }); // 2.5
 */
function numberSetting(name: string, text: string, rule: { decimals: boolean }): number {
  const pattern = rule.decimals ? /^\d+(\.\d+)?$/ : /^\d+$/;
  if (!pattern.test(text.trim())) {
    throw new Error(
      `${name} must be ${rule.decimals ? 'a number of 0 or more' : 'a whole number'} (got '${text}').`,
    );
  }
  return Number(text);
}

/**
 * Reads the politeness settings; `inProcess` picks the pace's default (none in-process).
 * Throws an Error naming the variable and the rule on a mistake.
 *
 * @example
 *   readPoliteness({ CONTRACT_MAX_RPS: '2' }, false).maxRps; // 2
 */
export function readPoliteness(env: NodeJS.ProcessEnv, inProcess: boolean): Politeness {
  const text = (name: string): string | undefined => env[name]?.trim() || undefined;
  const maxRpsText = text(POLITENESS_ENV['max-rps']);
  const retriesText = text(POLITENESS_ENV.retries);
  const waitMaxText = text(POLITENESS_ENV['retry-wait-max']);
  const waitTotalText = text(POLITENESS_ENV['retry-wait-total']);
  const duplicate = text(POLITENESS_ENV['duplicate-out-order-no']);
  const settings: Politeness = {
    maxRps:
      maxRpsText === undefined
        ? inProcess
          ? 0
          : POLITENESS_DEFAULTS.maxRps
        : numberSetting(POLITENESS_ENV['max-rps'], maxRpsText, { decimals: true }),
    retries:
      retriesText === undefined
        ? POLITENESS_DEFAULTS.retries
        : numberSetting(POLITENESS_ENV.retries, retriesText, { decimals: false }),
    waitMaxMs:
      1000 *
      (waitMaxText === undefined
        ? POLITENESS_DEFAULTS.waitMaxS
        : numberSetting(POLITENESS_ENV['retry-wait-max'], waitMaxText, { decimals: true })),
    waitTotalMs:
      1000 *
      (waitTotalText === undefined
        ? POLITENESS_DEFAULTS.waitTotalS
        : numberSetting(POLITENESS_ENV['retry-wait-total'], waitTotalText, { decimals: true })),
    retryOrders: envFlag(env, POLITENESS_ENV['retry-orders']),
  };
  if (duplicate !== undefined) {
    if (!(DUPLICATE_CHOICES as readonly string[]).includes(duplicate)) {
      throw new Error(
        `${POLITENESS_ENV['duplicate-out-order-no']} must be ${DUPLICATE_CHOICES.join(' or ')} (got '${duplicate}').`,
      );
    }
    settings.duplicateOutOrderNo = duplicate as Politeness['duplicateOutOrderNo'] & string;
  }
  if (settings.retryOrders && settings.duplicateOutOrderNo !== 'return-existing') {
    throw new Error(
      `${POLITENESS_ENV['retry-orders']}=1 retries an order only on a target known to answer a repeated outOrderNo with the existing order: set ${POLITENESS_ENV['duplicate-out-order-no']}=return-existing (what 'calibrate' learnt as duplicateOutOrderNo), or drop ${POLITENESS_ENV['retry-orders']}.`,
    );
  }
  return settings;
}

/**
 * Whether a run with this environment may wait to be polite, known before any worker
 * connects: then vitest's own case timeout is lifted and the suite times a case without
 * its waits (contract-test.ts).
 *
 * @example
 *   mayWaitPolitely({ CONTRACT_BASE_URL: 'https://api.eopen.io/api' }); // true
 */
export function mayWaitPolitely(env: NodeJS.ProcessEnv): boolean {
  if (env.CONTRACT_REPLAY?.trim()) return false;
  const inProcess = !env.CONTRACT_BASE_URL?.trim();
  const rps = env[POLITENESS_ENV['max-rps']]?.trim();
  const retries = env[POLITENESS_ENV.retries]?.trim();
  const paced = rps === undefined || rps === '' ? !inProcess : Number(rps) > 0;
  // A 429 can come from any target that is not a simulator, in-process stand-ins included.
  const retrying = retries === undefined || retries === '' || Number(retries) > 0;
  return paced || (retrying && (!inProcess || Boolean(env.CONTRACT_VARIANT)));
}
