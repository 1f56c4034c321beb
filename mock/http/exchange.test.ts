/**
 * The hub of finished exchanges: a server's exchanges are heard at the end of their turn, in
 * order, by every listener; an in-process one at once; and whatever reads what listeners
 * keep can take the pending ones first.
 */
import { describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator.ts';
import { createExchangeEvents, MAX_PENDING_EXCHANGES, type ExchangeFinished } from './exchange.ts';

const exchangeAt = (path: string): ExchangeFinished => ({
  at: 0,
  method: 'GET',
  path,
  status: 200,
  durationMs: 0,
});
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the exchange hub', () => {
  it("hands a server's exchanges over at the end of the turn, in order, to each listener", async () => {
    const hub = createExchangeEvents();
    const heard: string[] = [];
    hub.subscribe((x) => heard.push(`journal ${x.path}`));
    hub.subscribe((x) => heard.push(`counts ${x.path}`));
    hub.finish(exchangeAt('/a'), true);
    hub.finish(exchangeAt('/b'), true);
    expect(heard).toEqual([]);
    await nextTurn();
    expect(heard).toEqual(['journal /a', 'journal /b', 'counts /a', 'counts /b']);
  });

  it('hands an in-process exchange over at once, after those still pending', () => {
    const hub = createExchangeEvents();
    const heard: string[] = [];
    hub.subscribe((x) => heard.push(x.path));
    hub.finish(exchangeAt('/served'), true);
    hub.finish(exchangeAt('/in-process'));
    expect(heard).toEqual(['/served', '/in-process']);
  });

  it('hands the pending exchanges over when a reader flushes, and only once', async () => {
    const hub = createExchangeEvents();
    const heard: string[] = [];
    hub.subscribe((x) => heard.push(x.path));
    hub.finish(exchangeAt('/a'), true);
    hub.flush();
    expect(heard).toEqual(['/a']);
    await nextTurn();
    expect(heard).toEqual(['/a']);
  });

  it('holds no more than its bound: the exchange that fills it hands the batch over at once', () => {
    const hub = createExchangeEvents();
    let heard = 0;
    hub.subscribe(() => heard++);
    for (let i = 0; i < MAX_PENDING_EXCHANGES - 1; i++) hub.finish(exchangeAt(`/${i}`), true);
    expect(heard).toBe(0);
    hub.finish(exchangeAt('/last'), true);
    expect(heard).toBe(MAX_PENDING_EXCHANGES);
  });

  it('reports what a listener throws and still serves the other listeners and exchanges', async () => {
    const errors: unknown[] = [];
    const hub = createExchangeEvents({ onListenerError: (error) => errors.push(error) });
    const heard: string[] = [];
    hub.subscribe((x) => {
      if (x.path === '/a') throw new Error('listener broke');
    });
    hub.subscribe((x) => heard.push(x.path));
    hub.finish(exchangeAt('/a'), true);
    hub.finish(exchangeAt('/b'), true);
    await nextTurn();
    expect(heard).toEqual(['/a', '/b']);
    expect(errors).toEqual([new Error('listener broke')]);
  });

  it("still hands the rest of the batch over when the reporter of a listener's throw throws too", async () => {
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
    hub.finish(exchangeAt('/a'), true);
    hub.finish(exchangeAt('/b'), true);
    await nextTurn();
    expect(heard).toEqual(['/b']);
  });

  it('hands an exchange a listener finishes to every listener, after the batch under way', () => {
    const hub = createExchangeEvents();
    const heard: string[] = [];
    hub.subscribe((x) => {
      heard.push(`first ${x.path}`);
      if (x.path === '/a') hub.finish(exchangeAt('/from-listener'));
    });
    hub.subscribe((x) => {
      heard.push(`second ${x.path}`);
      // A listener reading what is kept while the batch is handed over changes nothing.
      hub.flush();
    });
    hub.finish(exchangeAt('/a'), true);
    hub.flush();
    expect(heard).toEqual(['first /a', 'second /a', 'first /from-listener', 'second /from-listener']);
  });
});

describe("a simulator's journal and call counts", () => {
  it('include the exchanges a server finished this turn whenever they are read or cleared', () => {
    const sim = createSimulator({ clock: 'manual' });
    const served = (): ExchangeFinished => ({ ...exchangeAt('/v1/account'), operation: 'getAccount' });
    sim.exchanges.finish(served(), true);
    expect(sim.journal.size).toBe(1);
    sim.exchanges.finish(served(), true);
    expect(sim.journal.list().map((entry) => entry.path)).toEqual(['/v1/account', '/v1/account']);
    sim.exchanges.finish(served(), true);
    expect(sim.calls.count({ operation: 'getAccount' }).count).toBe(3);
    sim.exchanges.finish(served(), true);
    expect(sim.calls.list().calls[0]?.count).toBe(4);
    sim.exchanges.finish(served(), true);
    sim.calls.clearCalls();
    expect(sim.calls.count({ operation: 'getAccount' }).count).toBe(0);
    // Cleared after the pending exchange was heard, not before it.
    sim.exchanges.finish(served(), true);
    sim.journal.clear();
    expect(sim.journal.size).toBe(0);
  });
});
