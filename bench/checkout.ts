/**
 * Which code a figure is of: the checkout's commit and its uncommitted changes to the
 * simulator itself (mock/, src/, spec/, bin/), whose figures are then of the working tree.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export interface CheckoutState {
  /** The short commit; a checkout without git (an export for --root) is named by its directory. */
  head: string;
  /** `git status --porcelain` lines of the simulator's own files. */
  dirty: string[];
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * The state of the checkout at `root`.
 *
 * @example
 *   describeCheckout(checkoutState(REPO_ROOT)); // 'aae4307' or 'aae4307 + 2 uncommitted change(s) to the simulator'
 */
export function checkoutState(root: string): CheckoutState {
  return {
    head: git(root, ['rev-parse', '--short', 'HEAD']) ?? `${path.basename(root)} (no git)`,
    dirty: (git(root, ['status', '--porcelain', '--', 'mock', 'src', 'spec', 'bin']) ?? '')
      .split('\n')
      .filter(Boolean),
  };
}

/** The state in words, for report headers. */
export function describeCheckout(state: CheckoutState): string {
  return `${state.head}${state.dirty.length ? ` + ${state.dirty.length} uncommitted change(s) to the simulator` : ''}`;
}
