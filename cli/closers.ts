/**
 * What a running command holds (a lock, a saver, a recording, a server…), let go of in one
 * place. Each resource pushes its closer as soon as it is acquired; closing runs them
 * newest first, so a resource is let go of before what it was built on, the same way
 * whether the start failed halfway or the command is told to stop.
 */

/** Why the closers run: a start that failed halfway, or an orderly close. */
export type CloseReason = 'failed' | 'closed';

/** Lets go of one resource; what it returns is awaited before the close resolves. */
export type Closer = (reason: CloseReason) => void | Promise<void>;

export interface Closers {
  /** Adds the closer of a resource just acquired. */
  push(closer: Closer): void;
  /**
   * Runs every closer once, newest first, each started as soon as the one before returns;
   * resolves when all have finished. A closer that throws does not keep the others from
   * running: the close rejects with the first error once they have.
   */
  close(reason: CloseReason): Promise<void>;
}

/**
 * Creates an empty stack of closers.
 *
 * @example
 *   const closers = createClosers();
 *   const release = lockStateFile(file);
 *   closers.push(release);
 *   closers.push(() => new Promise((resolve) => server.close(() => resolve())));
 *   await closers.close('closed'); // the server first, then the lock
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
