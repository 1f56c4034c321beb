/**
 * The hub of finished exchanges: each is heard by every listener, in order, as it finishes.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { createExchangeEvents, type ExchangeFinished } from './exchange.ts';

const exchangeAt = (path: string): ExchangeFinished => ({
  at: 0,
  method: 'GET',
  path,
  status: 200,
  durationMs: 0,
});

describe('the exchange hub', () => {
  it('hands each exchange to every listener as it finishes, in order', () => {
    const hub = createExchangeEvents();
    const heard: string[] = [];
    hub.subscribe((x) => heard.push(`journal ${x.path}`));
    hub.subscribe((x) => heard.push(`counts ${x.path}`));
    hub.finish(exchangeAt('/a'));
    expect(heard).toEqual(['journal /a', 'counts /a']);
    hub.finish(exchangeAt('/b'));
    expect(heard).toEqual(['journal /a', 'counts /a', 'journal /b', 'counts /b']);
  });

  it('reports what a listener throws and still serves the other listeners and exchanges', () => {
    const errors: unknown[] = [];
    const hub = createExchangeEvents({ onListenerError: (error) => errors.push(error) });
    const heard: string[] = [];
    hub.subscribe((x) => {
      if (x.path === '/a') throw new Error('listener broke');
    });
    hub.subscribe((x) => heard.push(x.path));
    hub.finish(exchangeAt('/a'));
    hub.finish(exchangeAt('/b'));
    expect(heard).toEqual(['/a', '/b']);
    expect(errors).toEqual([new Error('listener broke')]);
  });

  it("still serves the other listeners when the reporter of a listener's throw throws too", () => {
    const hub = createExchangeEvents({
      onListenerError: () => {
        throw new Error('reporter broke');
      },
    });
    const heard: string[] = [];
    hub.subscribe((x) => {
      if (x.path === '/a') throw new Error('listener broke');
      heard.push(x.path);
    });
    hub.subscribe((x) => heard.push(`second ${x.path}`));
    hub.finish(exchangeAt('/a'));
    hub.finish(exchangeAt('/b'));
    expect(heard).toEqual(['second /a', '/b', 'second /b']);
  });

  it('stops telling a listener once it unsubscribed', () => {
    const hub = createExchangeEvents();
    const heard: string[] = [];
    const stop = hub.subscribe((x) => heard.push(x.path));
    hub.finish(exchangeAt('/a'));
    stop();
    hub.finish(exchangeAt('/b'));
    expect(heard).toEqual(['/a']);
  });
});

describe("a simulator's journal and call counts", () => {
  it('hold each exchange as soon as it is finished, whenever they are read or cleared', () => {
    const sim = createSimulator({ clock: 'manual' });
    const served = (): ExchangeFinished => ({ ...exchangeAt('/v1/account'), operation: 'getAccount' });
    sim.exchanges.finish(served());
    expect(sim.journal.size).toBe(1);
    sim.exchanges.finish(served());
    expect(sim.journal.list().map((entry) => entry.path)).toEqual(['/v1/account', '/v1/account']);
    sim.exchanges.finish(served());
    expect(sim.calls.count({ operation: 'getAccount' }).count).toBe(3);
    sim.calls.clearCalls();
    expect(sim.calls.count({ operation: 'getAccount' }).count).toBe(0);
    sim.journal.clear();
    expect(sim.journal.size).toBe(0);
  });
});
