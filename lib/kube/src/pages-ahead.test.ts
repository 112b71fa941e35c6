import { describe, expect, it } from 'vitest';
import { readPagesAhead, type FetchedPage } from './pages-ahead.ts';

interface Page extends FetchedPage {
  readonly n: number;
}

/** A list of `count` pages whose fetches settle when the test says; every step is logged. */
function pagedList(count: number) {
  const steps: string[] = [];
  const waiting: { n: number; settle: (p: Page) => void; fail: (e: Error) => void }[] = [];
  const fetchPage = (token: string | undefined): Promise<Page> => {
    const n = token === undefined ? 0 : Number(token);
    steps.push(`fetch ${String(n)}`);
    return new Promise<Page>((settle, fail) => {
      waiting.push({ n, settle, fail });
    });
  };
  const page = (n: number): Page => ({
    n,
    ...(n + 1 < count ? { metadata: { continue: String(n + 1) } } : {}),
  });
  /** Lets the oldest fetch under way answer, then lets the reader run. */
  const answer = async (): Promise<void> => {
    const w = waiting.shift();
    if (w === undefined) throw new Error('no fetch under way');
    w.settle(page(w.n));
    await new Promise((r) => setImmediate(r));
  };
  return { steps, waiting, fetchPage, answer };
}

describe('readPagesAhead', () => {
  it('asks for the next page before taking in the current one', async () => {
    const list = pagedList(3);
    const read = readPagesAhead(list.fetchPage, (p) => list.steps.push(`take ${String(p.n)}`));
    await list.answer();
    expect(list.steps).toEqual(['fetch 0', 'fetch 1', 'take 0']);
    await list.answer();
    expect(list.steps).toEqual(['fetch 0', 'fetch 1', 'take 0', 'fetch 2', 'take 1']);
    await list.answer();
    const last = await read;
    expect(list.steps).toEqual(['fetch 0', 'fetch 1', 'take 0', 'fetch 2', 'take 1', 'take 2']);
    expect(last.n).toBe(2);
  });

  it('never has more than one fetch under way', async () => {
    const list = pagedList(5);
    let most = 0;
    const read = readPagesAhead(list.fetchPage, () => {
      most = Math.max(most, list.waiting.length);
    });
    for (let i = 0; i < 5; i++) {
      most = Math.max(most, list.waiting.length);
      await list.answer();
    }
    await read;
    expect(most).toBe(1);
  });

  it('reads a single page without a second fetch, an empty token being the end', async () => {
    const taken: number[] = [];
    const last = await readPagesAhead(
      (token) => Promise.resolve({ n: token === undefined ? 0 : 1, metadata: { continue: '' } }),
      (p) => taken.push(p.n),
    );
    expect(taken).toEqual([0]);
    expect(last.n).toBe(0);
  });

  it("rejects with a fetch's failure, the pages before it taken in", async () => {
    const taken: number[] = [];
    const failure = new Error('410 Gone: continue token expired');
    const read = readPagesAhead(
      (token) =>
        token === '2'
          ? Promise.reject(failure)
          : Promise.resolve({
              n: Number(token ?? 0),
              metadata: { continue: String(Number(token ?? 0) + 1) },
            }),
      (p) => taken.push(p.n),
    );
    await expect(read).rejects.toBe(failure);
    expect(taken).toEqual([0, 1]);
  });

  it("rejects with takeIn's failure and leaves the fetch under way unheard", async () => {
    const list = pagedList(3);
    const broken = new Error('cannot take this page in');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const read = readPagesAhead(list.fetchPage, () => {
        throw broken;
      });
      const outcome = expect(read).rejects.toBe(broken);
      await list.answer();
      await outcome;
      // The next page's fetch was under way: it fails later, with nobody left to hear it.
      list.waiting.shift()?.fail(new Error('connection reset'));
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
