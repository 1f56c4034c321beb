/**
 * A dropped connection is journaled as status 599, and the spec says so where it
 * describes the journal's status.
 */
import { describe, expect, it } from 'vitest';
import control from '../../src/generated/control.json' with { type: 'json' };
import { createSimulator } from '../simulator.ts';

describe('the status of a dropped connection', () => {
  it('is journaled as 599 with the fault that dropped it, as the spec documents', async () => {
    const sim = createSimulator({ clock: 'manual' });
    const fault = (await (
      await sim.app.request('/_sim/faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ operation: 'getAccount', response: 'drop' }),
      })
    ).json()) as { id: string };
    await Promise.resolve(sim.app.request('/v1/account', { headers: { 'API-KEY': 'demo-key' } })).catch(
      () => undefined,
    );
    const entry = sim.journal.list({ limit: 10, operation: 'getAccount' }).at(-1);
    expect(entry).toMatchObject({ status: 599, fault: fault.id });
    const described = (
      control as unknown as {
        components: { schemas: { JournalEntry: { properties: { status: { description?: string } } } } };
      }
    ).components.schemas.JournalEntry.properties.status.description;
    expect(described).toMatch(/599 means no answer at all: a `drop` fault/);
  });
});
