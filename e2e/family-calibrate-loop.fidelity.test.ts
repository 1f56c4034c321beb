/**
 * The calibration loop on every member of the family of stand-ins: breaking drift between
 * the member and the simulator's defaults before calibration, and none between the member
 * and the simulator calibrated from it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAMILY_MEMBERS, memberChoices } from '../contract-tests/stand-ins/family.ts';
import { calibrateLoop, describeFindings, recordServed, type LoopResult } from './calibrate-loop-harness.ts';
import { serveFamily } from './stand-in-family-targets.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'family-calibrate-loop-'));
const results = new Map<string, LoopResult>();
let defaults: string;
let family: Awaited<ReturnType<typeof serveFamily>>;

beforeAll(async () => {
  family = await serveFamily();
  defaults = await recordServed(scratch, 'simulator-defaults');
}, 300_000);

afterAll(async () => {
  await family?.close();
  // The table the loop came to, for whoever reads the run (FAMILY_LOOP_TABLE names a file to keep it).
  const table = [
    'member | breaking before | breaking after',
    ...[...results].map(([m, r]) => `${m} | ${r.before.length} | ${r.after.length}`),
  ].join('\n');
  console.log(`\n${table}\n`);
  if (process.env.FAMILY_LOOP_TABLE) writeFileSync(process.env.FAMILY_LOOP_TABLE, `${table}\n`);
  rmSync(scratch, { recursive: true, force: true });
});

describe('record, calibrate, serve, record --as-upstream and drift on each member of the family', () => {
  it.for(FAMILY_MEMBERS)(
    'leaves no breaking drift on the %s member once calibrated',
    { timeout: 600_000 },
    async (member) => {
      // A member whose choices need HTTP (gzip, Connection: close) is recorded where it is served.
      const served = memberChoices(member).gzip ? `${family.url}/family-${member}` : undefined;
      const result = await calibrateLoop(scratch, `family-${member}`, defaults, served);
      results.set(member, result);
      expect(
        result.after,
        `breaking after calibration:\n${describeFindings(result.after)}\ncalibrate said:\n${result.calibration}`,
      ).toEqual([]);
    },
  );

  it('finds breaking drift before calibration on the member that makes every choice differently', () => {
    const all = results.get('all-choices');
    expect(all, 'the all-choices loop ran').toBeDefined();
    expect(all!.before.length).toBeGreaterThan(0);
  });
});
