/**
 * A replay of a recording of any size: writes a recording@2 of N interactions (price
 * requests, each with a query of its own, about 400 bytes a line), then times, in-process,
 * its load (loadReplay, as `serve --replay` does: each line read, checked and indexed) and
 * the answers to requests that match a recorded one (hits) and to ones that match none
 * (misses).
 *
 *   npx tsx bench/replay-scale.ts                      # 10^6 interactions
 *   npx tsx bench/replay-scale.ts --interactions 100000
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { headerOf } from '../recording/recording-lines.ts';
import { MAIN_KEY_ALIAS, type Interaction } from '../recording/recording.ts';
import { loadReplay } from '../recording/replay-target.ts';
import { fileLimit, MAX_FILE_MB_CEILING } from '../src/bounded-file.ts';

const { values } = parseArgs({ options: { interactions: { type: 'string' }, requests: { type: 'string' } } });
const count = Number(values.interactions ?? 1_000_000);
const requests = Number(values.requests ?? 1000);

function interaction(i: number): Interaction {
  return {
    case: '(live traffic)',
    file: '(live traffic)',
    operation: 'getPrice',
    request: {
      method: 'GET',
      path: '/v1/tron/price',
      query: { period: '1h', rentalCount: String(65_000 + i) },
      apiKeyAlias: 'key-2',
    },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { code: 0, msg: 'success', time: '1741801800', data: { price: '100', total: String(i) } },
    },
    at: '2025-03-12T17:50:09.000Z',
    durationMs: 1.5,
  };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-scale-'));
try {
  const file = path.join(dir, 'large.jsonl');
  const fd = openSync(file, 'w');
  const header = headerOf({
    recordedAt: new Date().toISOString(),
    runId: 'bench',
    target: { kind: 'url', baseUrl: 'http://upstream.test', simulator: false, capabilities: [] },
    settings: { allowSpend: false, maxOrders: 0 },
    apiKeys: [{ alias: MAIN_KEY_ALIAS, role: 'main' }],
  });
  let batch = `${JSON.stringify(header)}\n`;
  for (let i = 0; i < count; i++) {
    batch += `${JSON.stringify(interaction(i))}\n`;
    if (batch.length > 4 * 1024 * 1024) {
      writeSync(fd, batch);
      batch = '';
    }
  }
  writeSync(fd, batch);
  closeSync(fd);
  const bytes = statSync(file).size;

  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const replay = loadReplay(file, fileLimit(MAX_FILE_MB_CEILING), { apiKey: '', onWarning: console.warn });
  const loaded = performance.now();
  const rss = process.memoryUsage().rss - rssBefore;

  const time = async (url: (i: number) => string): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < requests; i++) {
      const t = performance.now();
      const response = await replay.transport(
        new Request(url(i), { headers: { 'API-KEY': 'k' } }),
        '(live traffic)',
        '',
      );
      await response.arrayBuffer();
      out.push(performance.now() - t);
    }
    return out.sort((a, b) => a - b);
  };
  const pct = (sorted: number[], p: number): string =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(3);
  const hits = await time(
    (i) => `http://replay.invalid/v1/tron/price?rentalCount=${65_000 + ((i * 7919) % count)}&period=1h`,
  );
  const misses = await time((i) => `http://replay.invalid/v1/tron/price?rentalCount=${i}&period=2h`);
  console.log(
    [
      `${count} interactions, ${(bytes / 1024 / 1024).toFixed(0)} MB`,
      `load (read, check and index each line) ${((loaded - started) / 1000).toFixed(1)} s, RSS +${(rss / 1024 / 1024).toFixed(0)} MB`,
      `hit p50 ${pct(hits, 50)} ms, p99 ${pct(hits, 99)} ms`,
      `miss p50 ${pct(misses, 50)} ms, p99 ${pct(misses, 99)} ms (compared with ${replay.lastMissComparisons} recorded requests)`,
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
