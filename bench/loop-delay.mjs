// A preload: on SIGUSR2 writes to BENCH_LOOP_FILE the widest gap between ticks of a 5 ms timer
// since the last, and the most CPU the main thread ran within one (Linux's schedstat).
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.BENCH_LOOP_FILE;
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
/** The main thread's time on a core so far, ms (NaN off Linux). */
const ranMs = () => {
  try {
    return Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
};

if (file) {
  let [window, maxMs, maxRunMs, last, ran] = [0, 0, 0, performance.now(), ranMs()];
  setInterval(() => {
    const [now, nowRan] = [performance.now(), ranMs()];
    [maxMs, maxRunMs] = [Math.max(maxMs, now - last), Math.max(maxRunMs, nowRan - ran)];
    [last, ran] = [now, nowRan];
  }, 5).unref();
  process.on('SIGUSR2', () => {
    writeFileSync(file, JSON.stringify({ window: ++window, maxMs, maxRunMs }));
    [maxMs, maxRunMs] = [0, 0];
  });
}
