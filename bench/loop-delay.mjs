// A preload (`node --import`) for a server under the bench: on SIGUSR2 it writes to
// BENCH_LOOP_FILE the longest its event loop was held since the last SIGUSR2 (node's own
// event-loop delay histogram, 5 ms resolution) and starts a new window. JavaScript, as the
// server may run without a TypeScript loader.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_FILE;
if (file) {
  const delays = monitorEventLoopDelay({ resolution: 5 });
  delays.enable();
  let window = 0;
  process.on('SIGUSR2', () => {
    writeFileSync(file, JSON.stringify({ window: ++window, maxMs: delays.max / 1e6 }));
    delays.reset();
  });
}
