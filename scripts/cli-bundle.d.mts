// Types of scripts/cli-bundle.mjs (plain JavaScript: bin/energy-rental-kit.js imports it without tsx).

/** Where to bundle from and to; by default this checkout's CLI into node_modules/.cache. */
export interface BundleOptions {
  root?: string;
  /** `serve` (default: cli.mjs, other commands at run time), or `all-but-suite` for the CLI's tests. */
  commands?: 'serve' | 'all-but-suite';
}

export const EXTERNAL: Record<NonNullable<BundleOptions['commands']>, RegExp>;

export function staleness(options?: BundleOptions): string | undefined;
export function freshBundle(options?: BundleOptions): string | undefined;
export function buildBundle(options?: BundleOptions): Promise<{ bundle: string; ms: number }>;
