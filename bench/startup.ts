/**
 * Start-up time: from spawning the process to the first successful response (HTTP 200,
 * `code` 0) of GET /v1/tron/price, polling every 2 ms. The port is chosen before the
 * spawn so polling can start at once. Median of N starts, after one start that is thrown
 * away (it warms the file-system cache and tsx's transform cache).
 */
import http from 'node:http';
import { BENCH_KEY, freePort, serverCommand, spawnCommand, type ServerSpec } from './servers.ts';
import { median } from './stats.ts';

/** A server to start, and the API key its first request sends (default: the bench scenario's). */
export type StartSpec = Omit<ServerSpec, 'port'> & { apiKey?: string };

export interface StartupResult {
  runtime: string;
  medianMs: number;
  samplesMs: number[];
}

function probe(port: number, apiKey: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/tron/price?rentalCount=65000&period=1h',
        headers: { 'API-KEY': apiKey },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(res.statusCode === 200 && body.startsWith('{"code":0,')));
        res.on('error', () => resolve(false));
      },
    );
    req.on('error', () => resolve(false));
    req.setTimeout(5000, () => req.destroy());
  });
}

/** Milliseconds from spawn to the first good response, for one start. */
export async function timeOneStart(
  spec: StartSpec,
  timeoutMs = 30_000,
): Promise<{ ms: number; runtime: string }> {
  const command = serverCommand({ ...spec, port: await freePort() });
  const started = performance.now();
  const server = spawnCommand(command);
  try {
    for (;;) {
      if (await probe(command.port, spec.apiKey ?? BENCH_KEY))
        return { ms: performance.now() - started, runtime: server.runtime };
      if (server.child.exitCode !== null)
        throw new Error(`${spec.kind} exited with ${server.child.exitCode} before answering.`);
      if (performance.now() - started > timeoutMs)
        throw new Error(`${spec.kind} did not answer within ${timeoutMs} ms.`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    await server.stop();
  }
}

/**
 * Median start-up time of each server over `count` starts, interleaved (bare, simulator,
 * …, bare, simulator, …) so a slow moment of the machine hits all of them alike. Each
 * kind is started once first and that start is thrown away.
 */
export async function measureStartups(
  specs: Record<string, StartSpec>,
  count: number,
): Promise<Record<string, StartupResult>> {
  const names = Object.keys(specs);
  const out: Record<string, StartupResult> = {};
  for (const name of names) {
    const first = await timeOneStart(specs[name]!);
    out[name] = { runtime: first.runtime, medianMs: NaN, samplesMs: [] };
  }
  for (let i = 0; i < count; i++) {
    for (const name of names) out[name]!.samplesMs.push((await timeOneStart(specs[name]!)).ms);
  }
  for (const name of names) out[name]!.medianMs = median(out[name]!.samplesMs);
  return out;
}
