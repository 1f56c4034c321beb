/** What a running command holds, let go of newest first, after a failed start and on stop alike. */

/** Why the closers run: a start that failed halfway, or an orderly close. */
export type CloseReason = 'failed' | 'closed';

/** Lets go of one resource; what it returns is awaited before the close resolves. */
export type Closer = (reason: CloseReason) => void | Promise<void>;

export interface Closers {
  /** Adds the closer of a resource just acquired. */
  push(closer: Closer): void;
  /** Runs every closer once, newest first; once all have finished, rejects with the first error, if any. */
  close(reason: CloseReason): Promise<void>;
}

/**
 * Creates an empty stack of closers.
 * @example
 *   closers.push(release); closers.push(stopServer);
 *   await closers.close('closed'); // the server, then the lock
 */
export function createClosers(): Closers {
  const stack: Closer[] = [];
  return {
    push(closer) {
      stack.push(closer);
    },
    close(reason) {
      const finishing: Array<Promise<void>> = [];
      for (let closer = stack.pop(); closer; closer = stack.pop()) {
        try {
          const done = closer(reason);
          if (done) finishing.push(done);
        } catch (error) {
          finishing.push(Promise.reject(error as Error));
        }
      }
      // allSettled first: every closer finishes before the first failure is reported.
      return Promise.allSettled(finishing).then((results) => {
        for (const result of results) if (result.status === 'rejected') throw result.reason;
      });
    },
  };
}
