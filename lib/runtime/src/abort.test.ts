import { describe, expect, it } from 'vitest';
import { whenAborted } from './abort.ts';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('whenAborted', () => {
  it('resolves at once for a signal that has aborted', async () => {
    expect(await settled(whenAborted(AbortSignal.abort()))).toBe(true);
  });

  it('waits for the abort', async () => {
    const c = new AbortController();
    const wait = whenAborted(c.signal);
    expect(await settled(wait)).toBe(false);
    c.abort();
    expect(await settled(wait)).toBe(true);
  });

  it('drops its listener when told to forget, and then never resolves', async () => {
    const c = new AbortController();
    const forget = new AbortController();
    const wait = whenAborted(c.signal, forget.signal);
    forget.abort();
    c.abort();
    expect(await settled(wait)).toBe(false);
  });
});
