import { describe, expect, it } from 'vitest';
import { createClient } from './create-client.ts';
import { EnergyRentalError } from './energy-rental-error.ts';
import { ADDRESS, API_KEY, BASE_URL, json, stubFetch, text, virtualClock } from './test-support.ts';

const NODE = 'https://api.trongrid.io';

/** A client whose TRON node answers with `replies` in turn, on a virtual clock. */
function reading(...replies: Parameters<typeof stubFetch>) {
  const stub = stubFetch(...replies);
  const clock = virtualClock();
  const client = createClient({
    baseUrl: BASE_URL,
    apiKey: API_KEY,
    fetch: stub.fetch,
    now: clock.now,
    sleep: clock.sleep,
    tronNode: NODE,
    tronProApiKey: 'grid-key',
  });
  return { client, requests: stub.requests, elapsed: clock.elapsed };
}

describe('waitForEnergy', () => {
  it('reads getaccountresource until the address can spend the energy, and returns what it read', async () => {
    const seen: number[] = [];
    const { client, requests } = reading(
      json({}),
      json({ freeNetLimit: 600 }),
      json({ EnergyLimit: 65_000, EnergyUsed: 1000 }),
      json({ EnergyLimit: 130_000, EnergyUsed: 1000 }),
    );
    const energy = await client.waitForEnergy(ADDRESS, 65_000, { onEnergy: (e) => seen.push(e) });
    expect(energy).toBe(129_000);
    expect(seen).toEqual([0, 64_000, 129_000]);
    expect(requests).toHaveLength(4);
    const request = requests[0]!;
    expect(request.url).toBe(`${NODE}/wallet/getaccountresource`);
    expect(await request.json()).toEqual({ address: ADDRESS, visible: true });
    expect(request.headers.get('TRON-PRO-API-KEY')).toBe('grid-key');
    expect(request.headers.get('API-KEY')).toBeNull();
  });

  it('tolerates a transient failure, and times out naming the address, the energy and the last read', async () => {
    const { client, elapsed } = reading(
      json({ EnergyLimit: 1 }),
      text('busy', 503),
      json({ EnergyLimit: 1 }),
    );
    const error = await client.waitForEnergy(ADDRESS, 65_000, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnergyRentalError);
    expect(error).toMatchObject({ operation: 'waitForEnergy', kind: 'timeout' });
    expect((error as Error).message).toBe(
      `waitForEnergy failed: ${ADDRESS} did not hold 65000 energy within 5000 ms (timeout); last read: 1; last error: waitForEnergy failed: HTTP 503 from the TRON node`,
    );
    expect(elapsed()).toBe(5000);
  });

  it('throws a java-tron Error at once: waiting cannot fix it', async () => {
    const { client, requests } = reading(json({ Error: 'class java.lang.IllegalArgumentException : bad' }));
    await expect(client.waitForEnergy(ADDRESS, 65_000)).rejects.toMatchObject({
      operation: 'waitForEnergy',
      kind: 'api',
      message: 'waitForEnergy failed: the TRON node refused: class java.lang.IllegalArgumentException : bad',
    });
    expect(requests).toHaveLength(1);
  });

  it('refuses a malformed address or energy before reading anything', async () => {
    const { client, requests } = reading(json({}));
    await expect(client.waitForEnergy('T-nope', 65_000)).rejects.toThrow(/address must be a Base58Check/);
    await expect(client.waitForEnergy(ADDRESS, 0)).rejects.toThrow(/energy must be a positive whole number/);
    expect(requests).toHaveLength(0);
  });
});
