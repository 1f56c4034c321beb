import { describe, expect, it } from 'vitest';
import { chainNode, delegationEnd, END_TOLERANCE_MS } from './chain-delivery.ts';
import { CONTRACT_HELP, contractEnv } from './contract-command.ts';
import { readContractConfig } from './contract-config.ts';
import type { ContractTarget } from './contract-target.ts';
import { ADDRESS } from '../mock/test-support/fixtures.ts';

const targetAt = (baseUrl: string, simulator: boolean) =>
  ({
    info: { baseUrl, simulator },
    fetch: () => Promise.resolve(new Response('{}')),
  }) as unknown as ContractTarget;

describe('contract --tron-node', () => {
  it('is in the help and hands the node to the suite as CONTRACT_TRON_NODE', () => {
    expect(CONTRACT_HELP).toMatch(/--tron-node URL +TRON node \(java-tron's HTTP API/);
    expect(contractEnv(['--tron-node', 'https://api.trongrid.io'], {})).toMatchObject({
      CONTRACT_TRON_NODE: 'https://api.trongrid.io',
    });
    expect(readContractConfig({ CONTRACT_TRON_NODE: 'https://api.trongrid.io/' }).tronNode).toBe(
      'https://api.trongrid.io',
    );
  });

  it('refuses a node that is no http(s) URL, naming the variable', () => {
    expect(() => readContractConfig({ CONTRACT_TRON_NODE: 'api.trongrid.io' })).toThrow(
      "CONTRACT_TRON_NODE must be an http(s) URL of a TRON node such as https://api.trongrid.io (got 'api.trongrid.io').",
    );
  });

  it("reads --tron-node, else a simulator's own node, else none", () => {
    const none = readContractConfig({});
    const given = readContractConfig({ CONTRACT_TRON_NODE: 'https://api.trongrid.io' });
    expect(chainNode(none, targetAt('http://127.0.0.1:8787', true))?.url).toBe('http://127.0.0.1:8787');
    expect(chainNode(none, targetAt('https://api.eopen.io/api', false))).toBeUndefined();
    const node = chainNode(given, targetAt('https://api.eopen.io/api', false))!;
    expect(node.url).toBe('https://api.trongrid.io');
    // Another host than the target's is read directly, not through the target's transport.
    expect(node.fetch).not.toBe(targetAt('https://api.eopen.io/api', false).fetch);
  });
});

describe("a delegation's end against delivery + period", () => {
  it(`holds within ${END_TOLERANCE_MS / 1000} s, and names what it read otherwise`, () => {
    const expectedEnd = Date.UTC(2025, 0, 1);
    expect(
      delegationEnd({ expectedEnd, ends: [expectedEnd + END_TOLERANCE_MS] }, ADDRESS, '10min').within,
    ).toBe(true);
    const early = delegationEnd({ expectedEnd, ends: [expectedEnd - 300_000] }, ADDRESS, '10min');
    expect(early).toEqual({
      within: false,
      says: `a delegation to ${ADDRESS} ends within 60 s of delivery + 10min (2025-01-01T00:00:00.000Z); ends read: 2024-12-31T23:55:00.000Z`,
    });
    expect(delegationEnd({ expectedEnd, ends: [] }, ADDRESS, '10min').says).toMatch(/ends read: none$/);
  });
});
