/**
 * The contract run's settings, read once from the environment (the `contract` command
 * sets them from its flags).
 */
export interface ContractConfig {
  /** 'in-process' (default): a fresh simulator per file, no socket, manual clock. */
  mode: 'in-process' | 'url';
  baseUrl?: string;
  apiKey: string;
  /** Against a URL that is not a simulator, cases that create orders need this. */
  allowSpend: boolean;
  /** The most orders a run may create against a URL that is not a simulator. */
  maxOrders: number;
  /** Where the run's report goes. */
  reportPath: string;
  /** Address that receives the energy of spending cases; default: the account's wallet. */
  pledgeAddress?: string;
  /** A deliberately broken simulator variant (in-process only), for the suite's self-test. */
  variant?: string;
  /** Directory shared by the run's workers (order slots). */
  runDir?: string;
}

/**
 * Reads the configuration, naming the variable and the fix on a mistake.
 *
 * @example
 *   readContractConfig({ CONTRACT_BASE_URL: 'http://127.0.0.1:8787', CONTRACT_API_KEY: 'demo-key' }).mode; // 'url'
 */
export function readContractConfig(env: NodeJS.ProcessEnv = process.env): ContractConfig {
  const baseUrl = env.CONTRACT_BASE_URL?.trim() || undefined;
  const maxOrdersText = env.CONTRACT_MAX_ORDERS ?? '1';
  const maxOrders = Number(maxOrdersText);
  if (!/^\d+$/.test(maxOrdersText)) {
    throw new Error(`CONTRACT_MAX_ORDERS must be a whole number (got '${maxOrdersText}').`);
  }
  if (baseUrl) {
    try {
      new URL(baseUrl);
    } catch {
      throw new Error(`CONTRACT_BASE_URL must be an absolute URL such as https://api.eopen.io/api (got '${baseUrl}').`);
    }
    if (!env.CONTRACT_API_KEY) {
      throw new Error('CONTRACT_API_KEY is required with CONTRACT_BASE_URL: set it to the API key of the account to test with.');
    }
  }
  const config: ContractConfig = {
    mode: baseUrl ? 'url' : 'in-process',
    apiKey: env.CONTRACT_API_KEY ?? 'demo-key',
    allowSpend: env.CONTRACT_ALLOW_SPEND === '1',
    maxOrders,
    reportPath: env.CONTRACT_REPORT ?? 'contract-report.json',
  };
  if (baseUrl) config.baseUrl = baseUrl.replace(/\/+$/, '');
  if (env.CONTRACT_PLEDGE_ADDRESS) config.pledgeAddress = env.CONTRACT_PLEDGE_ADDRESS;
  if (env.CONTRACT_VARIANT) config.variant = env.CONTRACT_VARIANT;
  if (env.CONTRACT_RUN_DIR) config.runDir = env.CONTRACT_RUN_DIR;
  return config;
}
