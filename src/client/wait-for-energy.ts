/** Waiting until rented energy is on chain: a TRON node's getaccountresource read until it shows enough. */
import { isTronAddress } from '../tron-address.ts';
import { EnergyRentalError } from './energy-rental-error.ts';
import { fetchWithin } from './send-request.ts';
import { poll, type PollingClock } from './wait-for-order.ts';

export interface WaitForEnergyOptions {
  /** Give up after this many ms of the client's `now` clock. Default 60_000. */
  timeoutMs?: number;
  /** Pause between two reads, in ms. Default 1_000. */
  intervalMs?: number;
  /** Called with the energy first read, then once on each change. */
  onEnergy?: (energy: number) => void;
}

/** Where a TRON node is read: its base URL, the fetch and deadline of one read, an optional TronGrid key. */
export interface TronNode {
  url: string;
  fetch: (request: Request) => Promise<Response> | Response;
  timeoutMs: number;
  apiKey?: string | undefined;
}

const OPERATION = 'waitForEnergy';

/**
 * The energy an address can spend now (EnergyLimit - EnergyUsed); java-tron's `{ Error }` throws kind `api`.
 *
 * @example
 *   await readEnergy(node, 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3'); // 65000 once delivered
 */
export async function readEnergy(node: TronNode, address: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (node.apiKey) headers['TRON-PRO-API-KEY'] = node.apiKey;
  const url = `${node.url.replace(/\/+$/, '')}/wallet/getaccountresource`;
  const body = JSON.stringify({ address, visible: true });
  const { response, text } = await fetchWithin(node, OPERATION, url, { method: 'POST', headers, body });
  const details = { operation: OPERATION, status: response.status, body: text } as const;
  if (!response.ok)
    throw new EnergyRentalError(`HTTP ${response.status} from the TRON node`, { ...details, kind: 'http' });
  let answer: { EnergyLimit?: unknown; EnergyUsed?: unknown; Error?: unknown };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw new EnergyRentalError(`the TRON node's answer is not JSON: '${text.slice(0, 100)}'`, {
      ...details,
      kind: 'invalid-body',
    });
  }
  if (typeof answer.Error === 'string')
    throw new EnergyRentalError(`the TRON node refused: ${answer.Error}`, { ...details, kind: 'api' });
  const number = (value: unknown): number => (typeof value === 'number' ? value : 0);
  return number(answer.EnergyLimit) - number(answer.EnergyUsed);
}

/**
 * Reads the address's energy every `intervalMs` until it is at least `energy`, and returns it.
 *
 * @example
 *   const energy = await waitForEnergy(node, { now: Date.now, sleep }, 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3', 65_000);
 */
export async function waitForEnergy(
  node: TronNode,
  clock: PollingClock,
  address: string,
  energy: number,
  options: WaitForEnergyOptions = {},
): Promise<number> {
  if (!isTronAddress(address))
    throw new RangeError(`waitForEnergy: address must be a Base58Check TRON address (got '${address}').`);
  if (!(Number.isSafeInteger(energy) && energy > 0))
    throw new RangeError(`waitForEnergy: energy must be a positive whole number (got ${energy}).`);
  return poll(clock, OPERATION, options, {
    read: () => readEnergy(node, address),
    shown: (held) => held,
    onChange: options.onEnergy,
    done: (held) => held >= energy,
    timedOut: (timeoutMs, last) =>
      `${address} did not hold ${energy} energy within ${timeoutMs} ms (timeout); ${last === undefined ? 'no energy read' : `last read: ${last}`}`,
  });
}
