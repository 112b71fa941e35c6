/**
 * Webster (Sainte-Laguë) apportionment as upstream's scheduler runs it: seats go one at a time to
 * the party with the greatest `votes / (2·seats + 1)` (IEEE division, as Go computes it); equal
 * priorities go to the party with fewer seats, then by name in the binding's {@link NameOrder}.
 */
import { compareNames, type NameOrder } from '../name-order.ts';

export interface Party {
  readonly name: string;
  /** Non-negative weight. */
  readonly votes: number;
}

export interface Apportionment {
  readonly name: string;
  readonly seats: number;
}

interface Entry {
  readonly name: string;
  readonly votes: number;
  seats: number;
  priority: number;
}

/**
 * Seats for every party (zero-seat ones included), sorted by name ascending. Names must be
 * unique. Zero-vote parties win nothing while a party with votes exists.
 *
 * Runs in O(parties · log parties) whatever the seat count: the seats every party is certain
 * to win before any priority falls to a common divisor are granted at once, the rest one by one.
 */
export function apportion(
  seats: number,
  parties: readonly Party[],
  order: NameOrder,
): readonly Apportionment[] {
  const entries: Entry[] = parties.map((p) => ({
    name: p.name,
    votes: p.votes,
    seats: 0,
    priority: p.votes,
  }));
  let remaining = Math.max(0, Math.floor(seats));
  remaining -= grantCertainSeats(entries, remaining);
  if (entries.length > 0) awardOneByOne(entries, remaining, order);
  return entries.map((e) => ({ name: e.name, seats: e.seats })).sort((a, b) => compareNames(a.name, b.name));
}

function priorityOf(votes: number, seats: number): number {
  return votes / (2 * seats + 1);
}

/**
 * Awarding seats one by one hands them out in falling priority. So for any divisor `d`, every
 * priority above `d` is awarded before any priority at or below it, and as long as those are no
 * more than `seats`, granting them at once reaches exactly the state the one-by-one run passes
 * through. `d` is chosen so that at most `seats − parties/2` are granted; the rest is left to
 * {@link awardOneByOne}, which settles ties.
 */
function grantCertainSeats(entries: Entry[], seats: number): number {
  let votes = 0;
  let voters = 0;
  for (const e of entries) {
    votes += e.votes;
    if (e.votes > 0) voters++;
  }
  if (votes <= 0 || seats <= 2 * voters) return 0;
  const divisor = votes / (2 * (seats - voters));
  const granted = entries.map((e) => seatsAbove(e.votes, divisor));
  const total = granted.reduce((a, b) => a + b, 0);
  if (total > seats) return 0; // cannot happen by the bound above; kept as a guard against rounding
  entries.forEach((e, i) => {
    e.seats = granted[i] ?? 0;
    e.priority = priorityOf(e.votes, e.seats);
  });
  return total;
}

/** How many of the priorities `votes/1, votes/3, votes/5, …` exceed `divisor` (they fall monotonically). */
function seatsAbove(votes: number, divisor: number): number {
  if (!(votes > divisor)) return 0;
  let n = Math.max(1, Math.ceil((votes / divisor - 1) / 2));
  while (n > 0 && !(priorityOf(votes, n - 1) > divisor)) n--;
  while (priorityOf(votes, n) > divisor) n++;
  return n;
}

/** One seat at a time to the best party, kept at the top of a binary heap. */
function awardOneByOne(entries: Entry[], seats: number, order: NameOrder): void {
  const nameWins = order === 'ascending' ? (a: string, b: string) => a < b : (a: string, b: string) => a > b;
  const beats = (a: Entry, b: Entry): boolean =>
    a.priority > b.priority ||
    (a.priority === b.priority && (a.seats < b.seats || (a.seats === b.seats && nameWins(a.name, b.name))));
  const heap = [...entries];
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i, beats);
  for (let n = 0; n < seats; n++) {
    const top = heap[0] as Entry;
    top.seats++;
    top.priority = priorityOf(top.votes, top.seats);
    siftDown(heap, 0, beats);
  }
}

function siftDown(heap: Entry[], start: number, beats: (a: Entry, b: Entry) => boolean): void {
  let i = start;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let best = i;
    if (left < heap.length && beats(heap[left] as Entry, heap[best] as Entry)) best = left;
    if (right < heap.length && beats(heap[right] as Entry, heap[best] as Entry)) best = right;
    if (best === i) return;
    [heap[i], heap[best]] = [heap[best] as Entry, heap[i] as Entry];
    i = best;
  }
}
