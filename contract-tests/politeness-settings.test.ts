import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cli-error.ts';
import { contractEnv } from './contract-command.ts';
import { mayWaitPolitely, readPoliteness } from './contract-config.ts';

const URL_ENV = { CONTRACT_BASE_URL: 'https://api.example.test/api', CONTRACT_API_KEY: 'k' };

describe('the politeness settings', () => {
  it('pace a URL at 4 requests a second by default, and nothing in-process', () => {
    expect(readPoliteness({}, false)).toEqual({
      maxRps: 4,
      retries: 4,
      waitMaxMs: 30_000,
      waitTotalMs: 60_000,
      retryOrders: false,
    });
    expect(readPoliteness({}, true).maxRps).toBe(0);
    expect(readPoliteness({ CONTRACT_MAX_RPS: '0' }, false).maxRps).toBe(0);
    expect(readPoliteness({ CONTRACT_MAX_RPS: '2.5', CONTRACT_RETRY_WAIT_MAX: '5' }, true)).toMatchObject({
      maxRps: 2.5,
      waitMaxMs: 5_000,
    });
  });

  it('name the variable and the rule on a mistake', () => {
    expect(() => readPoliteness({ CONTRACT_MAX_RPS: 'fast' }, false)).toThrow(
      "CONTRACT_MAX_RPS must be a number of 0 or more (got 'fast').",
    );
    expect(() => readPoliteness({ CONTRACT_RETRIES: '1.5' }, false)).toThrow(
      "CONTRACT_RETRIES must be a whole number (got '1.5').",
    );
    expect(() => readPoliteness({ CONTRACT_DUPLICATE_OUT_ORDER_NO: 'maybe' }, false)).toThrow(
      /CONTRACT_DUPLICATE_OUT_ORDER_NO must be return-existing or reject/,
    );
  });

  it('retry orders only on a target known to return the existing order for a repeated outOrderNo', () => {
    expect(() => readPoliteness({ CONTRACT_RETRY_ORDERS: '1' }, false)).toThrow(
      /set CONTRACT_DUPLICATE_OUT_ORDER_NO=return-existing/,
    );
    expect(() =>
      readPoliteness({ CONTRACT_RETRY_ORDERS: '1', CONTRACT_DUPLICATE_OUT_ORDER_NO: 'reject' }, false),
    ).toThrow(/CONTRACT_RETRY_ORDERS=1 retries an order only/);
    expect(
      readPoliteness(
        { CONTRACT_RETRY_ORDERS: '1', CONTRACT_DUPLICATE_OUT_ORDER_NO: 'return-existing' },
        false,
      ),
    ).toMatchObject({ retryOrders: true, duplicateOutOrderNo: 'return-existing' });
  });

  it('tell the contract project, before any worker connects, whether a run may wait', () => {
    expect(mayWaitPolitely({})).toBe(false);
    expect(mayWaitPolitely(URL_ENV)).toBe(true);
    expect(mayWaitPolitely({ ...URL_ENV, CONTRACT_MAX_RPS: '0', CONTRACT_RETRIES: '0' })).toBe(false);
    expect(mayWaitPolitely({ CONTRACT_VARIANT: 'family-rate-limited' })).toBe(true);
    expect(mayWaitPolitely({ CONTRACT_REPLAY: 'recording.json' })).toBe(false);
  });
});

describe('the politeness flags of contract and record', () => {
  it('set the environment the suite reads', () => {
    const env = contractEnv(
      [
        ...['--base-url', URL_ENV.CONTRACT_BASE_URL, '--api-key', 'k'],
        ...['--max-rps', '2', '--retries', '3', '--retry-wait-max', '10', '--retry-wait-total', '20'],
        ...['--retry-orders', '--duplicate-out-order-no', 'return-existing'],
      ],
      {},
    );
    expect(env).toMatchObject({
      CONTRACT_MAX_RPS: '2',
      CONTRACT_RETRIES: '3',
      CONTRACT_RETRY_WAIT_MAX: '10',
      CONTRACT_RETRY_WAIT_TOTAL: '20',
      CONTRACT_RETRY_ORDERS: '1',
      CONTRACT_DUPLICATE_OUT_ORDER_NO: 'return-existing',
    });
  });

  it('name the flag and the rule on a mistake', () => {
    expect(() => contractEnv(['--max-rps', 'lots'], {})).toThrow(
      new CliError("--max-rps must be a number of 0 or more (got 'lots')."),
    );
    expect(() => contractEnv(['--retry-orders'], {})).toThrow(
      /^--retry-orders sends a createOrder again only to a target known to answer a repeated outOrderNo with the existing order: add --duplicate-out-order-no return-existing/,
    );
  });
});
