import { describe, expect, it } from 'vitest';
import { createClosers } from './closers.ts';

describe('closers', () => {
  it('run newest first, each once, with the reason of the close', async () => {
    const closers = createClosers();
    const ran: string[] = [];
    for (const name of ['lock', 'saver', 'server'])
      closers.push((reason) => void ran.push(`${name} ${reason}`));
    await closers.close('failed');
    await closers.close('closed');
    expect(ran).toEqual(['server failed', 'saver failed', 'lock failed']);
  });

  it('start every closer before the first one finishes, and resolve once all have', async () => {
    const closers = createClosers();
    const ran: string[] = [];
    let finish!: () => void;
    closers.push(() => void ran.push('lock'));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          ran.push('server');
          finish = () => {
            ran.push('server closed');
            resolve();
          };
        }),
    );
    let resolved = false;
    const closing = closers.close('closed').then(() => (resolved = true));
    expect(ran).toEqual(['server', 'lock']);
    await Promise.resolve();
    expect(resolved).toBe(false);
    finish();
    await closing;
    expect(ran).toEqual(['server', 'lock', 'server closed']);
  });

  it('run the others when one throws or rejects, then reject with the first error', async () => {
    const closers = createClosers();
    const ran: string[] = [];
    closers.push(() => void ran.push('lock'));
    closers.push(() => Promise.reject(new Error('second')));
    closers.push(() => {
      throw new Error('first');
    });
    await expect(closers.close('closed')).rejects.toThrow('first');
    expect(ran).toEqual(['lock']);
  });
});
