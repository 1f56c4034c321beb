// The part of autocannon's programmatic API that bench/load.ts uses (it ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    verifyBody?: (body: string) => boolean;
  }

  interface Result {
    /** Seconds the run took. */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
    ): this;
  }

  export default function autocannon(options: Options): Instance;
}
