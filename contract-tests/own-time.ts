/**
 * A case's own time: how long it has run, less what it waited to be polite (the pace, a
 * Retry-After, a backoff, a rate-limit header). vitest's timeout cannot leave those waits
 * out, so a polite run times its cases with this instead.
 */
import type { PoliteWaits } from './polite-transport.ts';

/**
 * Aborts the returned signal once the case has spent more than `limitMs` of its own time,
 * checked every `everyMs`; `stop` ends the watch.
 *
 * @example
 *   const watch = watchOwnTime(target.waitsOf(name), 120_000);
 *   try { await use(target.forCase(name, file, watch.signal)); } finally { watch.stop(); }
 */
export function watchOwnTime(
  waits: PoliteWaits,
  limitMs: number,
  options: { now?: () => number; everyMs?: number } = {},
): { signal: AbortSignal; stop(): void } {
  const now = options.now ?? (() => performance.now());
  const controller = new AbortController();
  const started = now();
  const timer = setInterval(() => {
    const waiting = waits.waitingSince === undefined ? 0 : now() - waits.waitingSince;
    if (now() - started - waits.waitedMs - waiting <= limitMs) return;
    clearInterval(timer);
    controller.abort(
      new Error(
        `the case spent more than ${limitMs} ms of its own time (its timeout), not counting the ${Math.round(waits.waitedMs + waiting)} ms it waited to be polite`,
      ),
    );
  }, options.everyMs ?? 1000);
  timer.unref();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}
