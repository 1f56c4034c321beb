// Types of scripts/cli-bundle.mjs (plain JavaScript: bin/energy-rental-kit.js imports it without tsx).

/** Where to bundle from and to; by default this checkout's CLI into node_modules/.cache. */
export interface BundleOptions {
  root?: string;
  /**
   * What the bundle runs: `serve` (the default: the checkout's cli.mjs, which leaves the other
   * commands' folders to run time), or `all-but-suite` (cli-all-but-suite.mjs, for the CLI's
   * tests: every command but `contract` and `record`).
   */
  commands?: 'serve' | 'all-but-suite';
}

export const EXTERNAL: Record<NonNullable<BundleOptions['commands']>, RegExp>;

export function staleness(options?: BundleOptions): string | undefined;
export function freshBundle(options?: BundleOptions): string | undefined;
export function buildBundle(options?: BundleOptions): Promise<{ bundle: string; ms: number }>;
