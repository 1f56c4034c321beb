/** The stand-in family as self-test targets; the gate runs FAMILY_GATE_TARGETS, the fidelity run the rest. */
import { gzipSync } from 'node:zlib';
import { createAdaptorServer } from '@hono/node-server';
import {
  breaksFor,
  FAMILY_MEMBERS,
  FAMILY_VARIANTS,
  memberChoices,
  type FamilyMember,
} from '../contract-tests/stand-ins/family.ts';
import { BREAKS } from '../contract-tests/stand-ins/breaks.ts';
import type { SelfTestTarget } from './contract-self-test-reporter.ts';

const SPEND = { CONTRACT_ALLOW_SPEND: '1', CONTRACT_MAX_ORDERS: '1' };

/** The member that combines every choice: it and its breaks run in the gate. */
const GATE_MEMBER: FamilyMember = 'all-choices';

/** Members run without planted breaks: their choices are the plain member's, but rate-limited. */
const FIDELITY_ONLY_MEMBERS: FamilyMember[] = ['rate-limited', 'rate-limited-strict'];

/** A variant in-process, or at `served` for a member that needs HTTP (gzip); unpaced, with retries. */
const targetEnv = (variant: string, served?: string): Record<string, string> => {
  const member = variant.replace(/^family-/, '').split('+')[0] as FamilyMember;
  if (!memberChoices(member).gzip || !served) return { CONTRACT_VARIANT: variant };
  return {
    CONTRACT_VARIANT: variant,
    CONTRACT_BASE_URL: `${served}/${variant}`,
    CONTRACT_API_KEY: 'demo-key',
    CONTRACT_MAX_RPS: '0',
    ...(memberChoices(member).rateLimit ? { CONTRACT_RETRIES: '30' } : {}),
  };
};

const readOnly = (member: FamilyMember, served?: string): SelfTestTarget => ({
  name: `family-${member}-read-only`,
  env: targetEnv(`family-${member}`, served),
});
const spending = (member: FamilyMember, served?: string): SelfTestTarget => ({
  name: `family-${member}-spend`,
  env: { ...targetEnv(`family-${member}`, served), ...SPEND },
});

/** A break that needs no order runs read-only: no lifecycle to wait for. */
const breakTargets = (member: FamilyMember, served?: string): SelfTestTarget[] =>
  breaksFor(member).map((name) => ({
    name: `family-${member}+${name}`,
    env: {
      ...targetEnv(`family-${member}+${name}`, served),
      ...(BREAKS[name]!.needs === 'none' ? {} : SPEND),
    },
  }));

/** An address the activation-fee member has not activated: the run notes the fee, and passes. */
export const FRESH_ADDRESS = 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3';

/**
 * Serves every variant at `<url>/<variant>`, gzip-compressed with `Connection: close` where chosen.
 * @example
 *   await fetch(`${(await serveFamily()).url}/family-gateway/v1/account`, { headers });
 */
export async function serveFamily(): Promise<{ url: string; close(): Promise<void> }> {
  const services = new Map<string, (request: Request) => Promise<Response>>();
  const server = createAdaptorServer({
    fetch: async (request: Request) => {
      const variant = new URL(request.url).pathname.split('/')[1] ?? '';
      const entry = FAMILY_VARIANTS[variant];
      if (!entry) return new Response('no such variant', { status: 404 });
      let service = services.get(variant);
      if (!service) services.set(variant, (service = entry()));
      const response = await service(request);
      if (!memberChoices(variant.replace(/^family-/, '').split('+')[0] as FamilyMember).gzip) return response;
      const headers = new Headers(response.headers);
      headers.set('content-encoding', 'gzip');
      headers.set('connection', 'close');
      const body = new Uint8Array(await response.arrayBuffer());
      return new Response(response.status === 204 ? null : gzipSync(body), {
        status: response.status,
        headers,
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The planted breaks among targets, each with what its failure must name: its fact (breaks.ts). */
export const expectationsOf = (targets: SelfTestTarget[]): Record<string, { test: RegExp; error: RegExp }> =>
  Object.fromEntries(
    targets
      .filter((t) => t.name.includes('+'))
      .map((t) => {
        const facts = BREAKS[t.name.split('+')[1]!]!.facts.join('|');
        return [t.name, { test: /./, error: new RegExp(`fact (${facts}) \\(`) }];
      }),
  );

/** The gate's targets: the member of every choice with each of its breaks, and the plain member spending. */
export const FAMILY_GATE_TARGETS: SelfTestTarget[] = [
  readOnly(GATE_MEMBER),
  spending(GATE_MEMBER),
  spending('plain'),
  ...breakTargets(GATE_MEMBER),
];
export const FAMILY_GATE_EXPECTATIONS = expectationsOf(FAMILY_GATE_TARGETS);

/** The fidelity run's targets: every run and break the gate leaves out, served at `served` (serveFamily). */
export function fidelityTargets(served: string): SelfTestTarget[] {
  const gate = new Set(FAMILY_GATE_TARGETS.map((t) => t.name));
  return [
    ...FAMILY_MEMBERS.flatMap((m) => [
      readOnly(m, served),
      spending(m, served),
      ...(FIDELITY_ONLY_MEMBERS.includes(m) ? [] : breakTargets(m, served)),
    ]),
    {
      name: 'family-gateway-activation-fee-fresh-address-spend',
      env: { ...spending('gateway-activation-fee', served).env, CONTRACT_PLEDGE_ADDRESS: FRESH_ADDRESS },
    },
  ].filter((t) => !gate.has(t.name));
}
