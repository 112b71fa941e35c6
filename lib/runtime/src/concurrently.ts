/**
 * Calls `fn` on every item with at most `limit` calls in flight, and resolves to their results in
 * the items' order. Used where one reconcile makes several independent writes (a binding's Works,
 * one per cluster): sent one after another they cost a round trip each, sent all at once they could
 * be hundreds for a binding placed on every cluster.
 *
 * A rejected call stops new calls from starting; the whole call rejects with the first failure once
 * the calls already started have ended, so nothing it began is still running when it returns. `fn`
 * should resolve, not throw, when a failure must not stop the others.
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!(Number.isInteger(limit) && limit >= 1)) {
    throw new RangeError(`concurrency limit must be a positive integer, got ${limit}`);
  }
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { readonly err: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T, i);
      } catch (err: unknown) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== undefined) throw failure.err;
  return results;
}
