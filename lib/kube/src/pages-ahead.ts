/**
 * A paged LIST read one page ahead. Each page's request waits on the API server, and each page
 * the reader takes in costs it CPU (a cache copies and trims every object); one after the other,
 * a list of 120 pages pays both 120 times. Here the next page is asked for as soon as the current
 * one names it (its `continue` token), and the current one is taken in while the next is on its
 * way, so a cold start's lists wait on the slower of the two rather than on their sum. At most
 * two pages are held at once: the one being taken in and the one arriving.
 */

/** One page of a LIST as the API server sends it: its ListMeta names the next page. */
export interface FetchedPage {
  /** `continue`: the token of the next page; absent or empty on the last one. */
  readonly metadata?: { readonly continue?: string | undefined };
}

/**
 * Fetches the pages (`fetchPage(undefined)` the first, then each with the token its predecessor
 * gave) and hands each to `takeIn`, in order, the next page's request started before `takeIn` of
 * the current one runs. Resolves with the last page once it was taken in. The first failure, of a
 * fetch or of `takeIn`, rejects; a fetch already under way is then left to settle unheard.
 */
export async function readPagesAhead<P extends FetchedPage>(
  fetchPage: (continueToken: string | undefined) => Promise<P>,
  takeIn: (page: P) => void,
): Promise<P> {
  let page = await fetchPage(undefined);
  for (;;) {
    const token = page.metadata?.continue;
    if (token === undefined || token === '') {
      takeIn(page);
      return page;
    }
    const next = fetchPage(token);
    // Should takeIn throw, nobody awaits `next`: its failure must not surface as unhandled.
    next.catch(() => undefined);
    takeIn(page);
    page = await next;
  }
}
