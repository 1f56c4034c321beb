/**
 * Docker cannot run on these machines, so the Dockerfile is checked for what it
 * promises, and its CMD and HEALTHCHECK are run here as the container would run them
 * (on loopback instead of 0.0.0.0).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { rawRequest } from '../mock/test-support/socket-test-support.ts';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
const lines = dockerfile
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const runtime = lines.slice(lines.findLastIndex((l) => l.startsWith('FROM ')));

/** The exec-form arguments of the runtime stage's CMD, or of its HEALTHCHECK's CMD. */
function jsonArgs(instruction: 'CMD' | 'HEALTHCHECK'): string[] {
  const line = runtime.find((l) => l.startsWith(`${instruction} `));
  if (!line) throw new Error(`no ${instruction} in the runtime stage`);
  return JSON.parse(line.slice(line.indexOf('CMD [') + 4)) as string[];
}

/** The runtime stage's ENTRYPOINT (exec form). */
function entrypoint(): string[] {
  const line = runtime.find((l) => l.startsWith('ENTRYPOINT '));
  if (!line) throw new Error('no ENTRYPOINT in the runtime stage');
  return JSON.parse(line.slice('ENTRYPOINT '.length)) as string[];
}

/** What the container runs by default, with the image's /app/ paths in this checkout. */
function containerCommand(): string[] {
  return [...entrypoint(), ...jsonArgs('CMD')].map((arg) => arg.replace(/^\/app\//, `${root}/`));
}

function env(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of runtime.filter((l) => l.startsWith('ENV '))) {
    for (const [, key, value] of line.slice(4).matchAll(/(\w+)=(\S+)/g)) out[key!] = value!;
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs the image's CMD with `containerEnv`, resolving once it listens. */
async function startCmd(containerEnv: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const [command, ...args] = containerCommand();
  const child = spawn(command === 'node' ? process.execPath : command!, args, {
    cwd: root,
    env: containerEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the CMD did not start: ${output}`)), 20_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening on')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`the CMD exited with ${code}: ${output}`)));
    });
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return child;
}

describe('Dockerfile', () => {
  // node:20-slim reaches its end of life in April 2026: the image is on the Active LTS line.
  it('builds and runs on node:26-slim as a non-root user, with a health check on /_sim/health', () => {
    expect(lines.filter((l) => l.startsWith('FROM ')).map((l) => l.split(/\s+/)[1])).toEqual([
      'node:26-slim',
      'node:26-slim',
    ]);
    expect(runtime[0]).toBe('FROM node:26-slim');
    expect(runtime).toContain('USER node');
    expect(jsonArgs('HEALTHCHECK').join(' ')).toContain('/_sim/health');
    expect(dockerfile).toMatch(/ENERGY_SIM_TOKEN/);
  });

  it('runs the kit as an installed user does: every shipped path and the production dependencies, vitest among them', () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      files: string[];
      dependencies: Record<string, string>;
    };
    const copied = runtime
      .filter((l) => l.startsWith('COPY '))
      .map((l) =>
        l
          .split(/\s+/)
          .at(-2)!
          .replace(/^\/app\//, ''),
      );
    for (const shipped of manifest.files.filter((f) => f !== 'README.md'))
      expect(copied, shipped).toContain(shipped);
    expect(runtime).toContain('RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force');
    // `contract` and `record` spawn the kit's own vitest (--help, contract and record crashed without it).
    expect(Object.keys(manifest.dependencies)).toContain('vitest');
    expect(entrypoint()).toEqual(['node', '/app/bin/energy-rental-kit.js']);
    expect(jsonArgs('CMD')).toEqual(['serve']);
  });

  it('runs commands in a directory the node user owns, so reports and recordings can be written', () => {
    const workdirs = runtime.filter((l) => l.startsWith('WORKDIR '));
    expect(workdirs.at(-1)).toBe('WORKDIR /work');
    expect(runtime.indexOf('RUN mkdir /work && chown node:node /work')).toBeGreaterThan(-1);
    expect(runtime.indexOf('RUN mkdir /work && chown node:node /work')).toBeLessThan(
      runtime.indexOf('USER node'),
    );
  });

  it('copies only files that exist', () => {
    for (const line of lines.filter((l) => l.startsWith('COPY ') && !l.includes('--from'))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources) {
        if (source === '.') continue;
        // A pattern in the last segment (docs/*.md) must match at least one file, as Docker requires.
        const dir = path.dirname(source);
        const pattern = path.basename(source);
        const matched = pattern.includes('*')
          ? existsSync(path.join(root, dir)) &&
            readdirSync(path.join(root, dir)).some((name) =>
              new RegExp(`^${pattern.split('*').map(escapeRegExp).join('[^/]*')}$`).test(name),
            )
          : existsSync(path.join(root, source));
        expect(matched, `${line}: ${source}`).toBe(true);
      }
    }
  });

  it('serves the API with its CMD, and its HEALTHCHECK passes', async () => {
    const port = await freePort();
    const containerEnv = {
      ...process.env,
      ...env(),
      ENERGY_SIM_HOST: '127.0.0.1',
      ENERGY_SIM_PORT: String(port),
    };
    const child = await startCmd(containerEnv);
    try {
      const price = await fetch(`http://127.0.0.1:${port}/v1/tron/price?rentalCount=65000&period=1h`, {
        headers: { 'API-KEY': 'demo-key' },
      });
      expect((await price.json()).data.trxPrice).toBe('4.23');
      const [hcCommand, ...hcArgs] = jsonArgs('HEALTHCHECK');
      await expect(
        promisify(execFile)(hcCommand === 'node' ? process.execPath : hcCommand!, hcArgs, {
          env: containerEnv,
        }),
      ).resolves.toBeDefined();
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);

  it('keeps the control plane off on 0.0.0.0 unless ENERGY_SIM_TOKEN is set', () => {
    expect(env().ENERGY_SIM_HOST).toBe('0.0.0.0');
    expect(env().ENERGY_SIM_TOKEN).toBeUndefined();
  });
});

describe('examples/docker-compose.yml', () => {
  const compose = parseYaml(readFileSync(path.join(root, 'examples/docker-compose.yml'), 'utf8')) as {
    services: Record<string, { environment?: Record<string, string>; ports?: string[] }>;
  };
  const service = compose.services['energy-sim']!;
  /** The service's environment with `${VAR:-default}` at its default and /app/ paths in this checkout. */
  const serviceEnv = Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([name, value]) => [
      name,
      String(value)
        .replace(/\$\{\w+:-([^}]*)\}/g, '$1')
        .replace(/^\/app\//, `${root}/`),
    ]),
  );

  it('leaves the Host check on in the image, so a published port stays closed to DNS rebinding', () => {
    expect(env().ENERGY_SIM_ALLOWED_HOSTS).toBeUndefined();
    expect(serviceEnv.ENERGY_SIM_ALLOWED_HOSTS).not.toMatch(/\ball\b/);
  });

  it('lets the app reach the simulator by its service name and the host by the mapped port, and no other name', async () => {
    const port = await freePort();
    const child = await startCmd({
      ...process.env,
      ...env(),
      ...serviceEnv,
      ENERGY_SIM_HOST: '127.0.0.1',
      ENERGY_SIM_PORT: String(port),
    });
    try {
      const mapped = service.ports!.map(
        (mapping) => mapping.split(':').slice(0, -2).join(':') || 'localhost',
      );
      const serviceHost = `energy-sim:${port}`;
      for (const host of [
        serviceHost,
        ...mapped.map((address) => `${address}:${port}`),
        `localhost:${port}`,
      ]) {
        const price = await rawRequest(port, 'GET', '/v1/tron/price?rentalCount=65000&period=1h', {
          host,
          'api-key': 'demo-key',
        });
        expect(price.status, `${host}: ${price.text}`).toBe(200);
      }
      // The app's tests drive /_sim with the token, by the service name.
      const token = {
        host: serviceHost,
        authorization: `Bearer ${serviceEnv.ENERGY_SIM_TOKEN}`,
        'content-type': 'application/json',
      };
      expect(
        (await rawRequest(port, 'POST', '/_sim/accounts', token, '{"balance":{"trx":"5"}}')).status,
      ).toBe(201);
      const rebound = await rawRequest(port, 'GET', '/v1/account', {
        host: `evil.example:${port}`,
        'api-key': 'demo-key',
      });
      expect(rebound.status).toBe(403);
      expect(rebound.body.msg).toMatch(/--allowed-hosts evil\.example/);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
