/** The receiving address's energy on a TRON node, read after the suite's order as a user's code reads it. */
import { PERIOD_MS } from '../mock/engine/pricing.ts';
import { EnergyRentalError } from '../src/client/energy-rental-error.ts';
import { fetchWithin } from '../src/client/send-request.ts';
import { waitForEnergy, type TronNode } from '../src/client/wait-for-energy.ts';
import type { Period } from '../src/models.ts';
import type { ContractConfig } from './contract-config.ts';
import type { ContractTarget } from './contract-target.ts';

/** Longest wait for the energy: far past the documented 3 to 6 s, within a case's own time. */
export const DELIVERY_BOUND_MS = 90_000;
/** How far a delegation's end may lie from delivery + period: a poll, a block, two clocks. */
export const END_TOLERANCE_MS = 60_000;
const POLL_MS = 500;

/**
 * The node a run reads: `--tron-node`, else a simulator target's own (through its transport); else none.
 *
 * @example
 *   chainNode(config, target)?.url; // 'http://simulator.in-process' in-process
 */
export function chainNode(config: ContractConfig, target: ContractTarget): TronNode | undefined {
  const url = config.tronNode ?? (target.info.simulator ? target.info.baseUrl : undefined);
  if (url === undefined) return undefined;
  const own = new URL(url).origin === new URL(target.info.baseUrl).origin;
  return { url, fetch: own ? target.fetch : (request) => globalThis.fetch(request), timeoutMs: 10_000 };
}

/** One read of the node's full-node API (`/wallet/<name>`, base58 addresses); java-tron's `Error` throws. */
async function readNode(node: TronNode, name: string, body: object): Promise<Record<string, unknown>> {
  const url = `${node.url}/wallet/${name}`;
  const { response, text } = await fetchWithin(node, 'waitForEnergy', url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, visible: true }),
  });
  const answer = JSON.parse(text) as Record<string, unknown>;
  if (!response.ok || typeof answer.Error === 'string')
    throw new Error(`${url} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  return answer;
}

/** What the node showed of an order: when its energy arrived, and when its delegation ends. */
export interface Delivery {
  /** Ms from creation until the energy was read on chain; undefined when it never was. */
  tookMs?: number;
  missing?: string;
  /** Delivery + period by the node's clock (its latest block when the energy was read). */
  expectedEnd?: number;
  /** `expire_time_for_energy` of every delegation to the address. */
  ends: number[];
}

/** Waits (by the target's clock) until the order's energy arrived, then reads every delegation to it. */
export async function watchDelivery(
  node: TronNode,
  target: ContractTarget,
  order: {
    pledgeAddress: string;
    rentalCount: number;
    period: Period;
    createdAt: number;
    heldBefore: number;
  },
): Promise<Delivery> {
  const address = order.pledgeAddress;
  try {
    const bounds = { timeoutMs: DELIVERY_BOUND_MS, intervalMs: POLL_MS };
    // The target is the clock: a simulator's is advanced, not waited for.
    await waitForEnergy(node, target, address, order.heldBefore + order.rentalCount, bounds);
  } catch (error) {
    if (!(error instanceof EnergyRentalError && error.kind === 'timeout')) throw error;
    return { missing: error.message, ends: [] };
  }
  const tookMs = target.now() - order.createdAt;
  const block = (await readNode(node, 'getnowblock', {})) as {
    block_header?: { raw_data?: { timestamp?: number } };
  };
  const index = await readNode(node, 'getdelegatedresourceaccountindexv2', { value: address });
  const ends: number[] = [];
  for (const from of (index.fromAccounts as string[] | undefined) ?? []) {
    const { delegatedResource = [] } = (await readNode(node, 'getdelegatedresourcev2', {
      fromAddress: from,
      toAddress: address,
    })) as { delegatedResource?: Array<{ expire_time_for_energy?: number }> };
    for (const record of delegatedResource) ends.push(record.expire_time_for_energy ?? 0);
  }
  const now = block.block_header?.raw_data?.timestamp ?? 0;
  return { tookMs, expectedEnd: now + PERIOD_MS[order.period], ends };
}

/**
 * Whether a delegation to the address ends within END_TOLERANCE_MS of delivery + period, and a sentence.
 *
 * @example
 *   delegationEnd({ expectedEnd: 600_000, ends: [601_000] }, 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3', '10min').within; // true
 */
export function delegationEnd(
  { expectedEnd = 0, ends }: Pick<Delivery, 'expectedEnd' | 'ends'>,
  address: string,
  period: Period,
): { within: boolean; says: string } {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    within: ends.some((end) => Math.abs(end - expectedEnd) <= END_TOLERANCE_MS),
    says: `a delegation to ${address} ends within ${END_TOLERANCE_MS / 1000} s of delivery + ${period} (${iso(expectedEnd)}); ends read: ${ends.map(iso).join(', ') || 'none'}`,
  };
}
