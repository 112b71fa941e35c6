/**
 * The self-fence's decisions, apart from any I/O.
 *
 * The agent keeps a fence record in the member (a ConfigMap): every copy it applied for a Work
 * carrying a fence timeout, and the wall-clock time of the last heartbeat renewal it counted. The
 * record is written before a fenced Work's first apply, so a process that starts during a partition
 * (no control plane to list Works from) still knows what to fence, and since when.
 *
 * A renewal counts from the moment its tick started (before the write was sent), however late its
 * answer came, and only when the write succeeded by the tick's deadline (always shorter than the
 * Lease duration, see liveness-deadline.ts): the deadline `base + fence timeout` is therefore never
 * later than the last renewal the control plane can have seen plus the timeout. Within a process
 * the base is kept on the monotonic clock; the record's wall-clock time serves a process that has
 * not counted a renewal of its own (one that restarted, or a replica that does not lead).
 */

/** A member object a fenced Work applied. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

export interface FenceEntry {
  /** `<execution namespace>/<work name>`. */
  readonly work: string;
  readonly uid: string;
  readonly fenceSeconds: number;
  readonly objects: readonly ObjectRef[];
  /** When the copies were deleted (RFC 3339); absent while they may run. */
  readonly fencedAt?: string;
}

export interface FenceRecord {
  /** Wall-clock ms of the start of the last counted renewal; absent before the first. */
  readonly lastRenewalMs?: number;
  readonly entries: readonly FenceEntry[];
}

export const EMPTY_FENCE_RECORD: FenceRecord = { entries: [] };

/** ConfigMap data keys. */
export const RECORD_KEYS = { lastRenewal: 'lastRenewal', works: 'works' } as const;

export interface ParsedRecord {
  readonly record: FenceRecord;
  /** What could not be read. A record that cannot be read fences everything it lists. */
  readonly problems: readonly string[];
}

function isObjectRef(v: unknown): v is ObjectRef {
  const o = v as Partial<Record<keyof ObjectRef, unknown>> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.apiVersion === 'string' &&
    typeof o.kind === 'string' &&
    typeof o.name === 'string' &&
    (o.namespace === undefined || typeof o.namespace === 'string')
  );
}

function isEntry(v: unknown): v is FenceEntry {
  const e = v as Partial<Record<keyof FenceEntry, unknown>> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.work === 'string' &&
    typeof e.uid === 'string' &&
    typeof e.fenceSeconds === 'number' &&
    Array.isArray(e.objects) &&
    e.objects.every(isObjectRef) &&
    (e.fencedAt === undefined || typeof e.fencedAt === 'string')
  );
}

/** The record a ConfigMap's data holds; what cannot be read is named in `problems`. */
export function parseFenceRecord(data: Readonly<Record<string, string>> | undefined): ParsedRecord {
  const problems: string[] = [];
  const lastRenewalMs = parseLastRenewal(data?.[RECORD_KEYS.lastRenewal], problems);
  const entries = parseEntries(data?.[RECORD_KEYS.works], problems);
  return { record: { ...(lastRenewalMs === undefined ? {} : { lastRenewalMs }), entries }, problems };
}

function parseLastRenewal(raw: string | undefined, problems: string[]): number | undefined {
  if (raw === undefined) return undefined;
  const ms = Date.parse(raw);
  if (!Number.isNaN(ms)) return ms;
  problems.push(`${RECORD_KEYS.lastRenewal} is not a time: "${raw}"`);
  return undefined;
}

function parseEntries(raw: string | undefined, problems: string[]): FenceEntry[] {
  if (raw === undefined) return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch (err: unknown) {
    problems.push(`${RECORD_KEYS.works} is unreadable: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  }
  if (!Array.isArray(list)) {
    problems.push(`${RECORD_KEYS.works} is unreadable: not a JSON array`);
    return [];
  }
  const entries: FenceEntry[] = [];
  for (const e of list as unknown[]) {
    if (isEntry(e)) entries.push(e);
    else problems.push(`an entry of ${RECORD_KEYS.works} is malformed: ${JSON.stringify(e)}`);
  }
  return entries;
}

export function renderFenceRecord(record: FenceRecord): Record<string, string> {
  return {
    ...(record.lastRenewalMs === undefined
      ? {}
      : { [RECORD_KEYS.lastRenewal]: new Date(record.lastRenewalMs).toISOString() }),
    [RECORD_KEYS.works]: JSON.stringify(record.entries),
  };
}

export interface Clocks {
  readonly nowMono: number;
  readonly nowWall: number;
}

/**
 * The monotonic time the fence deadlines count from: the latest counted renewal known, this
 * process's own or the record's (mapped from the wall clock); undefined when neither is known.
 */
export function renewalBase(
  inProcessMono: number | undefined,
  recordWallMs: number | undefined,
  clocks: Clocks,
): number | undefined {
  const fromRecord =
    recordWallMs === undefined ? undefined : clocks.nowMono - (clocks.nowWall - recordWallMs);
  if (inProcessMono === undefined) return fromRecord;
  if (fromRecord === undefined) return inProcessMono;
  return Math.max(inProcessMono, fromRecord);
}

export interface FencePlan {
  /** Entries whose copies must go now. */
  readonly due: readonly FenceEntry[];
  /** When the next entry falls due, from now; undefined when none is pending. */
  readonly nextInMs?: number;
}

/**
 * Which entries are due: those not fenced yet whose deadline (base + fence timeout) has come. With
 * no base at all, every entry is due: the record says copies may run and nothing says when the
 * agent was last in touch.
 */
export function planFence(record: FenceRecord, base: number | undefined, nowMono: number): FencePlan {
  const pending = record.entries.filter((e) => e.fencedAt === undefined);
  if (base === undefined) return { due: pending };
  const due: FenceEntry[] = [];
  let nextInMs: number | undefined;
  for (const e of pending) {
    const left = base + e.fenceSeconds * 1000 - nowMono;
    if (left <= 0) due.push(e);
    else nextInMs = nextInMs === undefined ? left : Math.min(nextInMs, left);
  }
  return { due, ...(nextInMs === undefined ? {} : { nextInMs }) };
}

/** Identity of a member object in an entry. */
function refKey(r: ObjectRef): string {
  return `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`;
}

/**
 * The record with `entry` in place of any entry for the same Work. Objects listed for the same Work
 * (same uid) stay listed: a copy a changed manifest no longer names may still run, and must still
 * be fenced; a new uid starts afresh.
 */
export function withEntry(record: FenceRecord, entry: FenceEntry): FenceRecord {
  const same = record.entries.find((e) => e.work === entry.work && e.uid === entry.uid);
  const known = new Set(entry.objects.map(refKey));
  const kept = (same?.objects ?? []).filter((o) => !known.has(refKey(o)));
  const merged = kept.length === 0 ? entry : { ...entry, objects: [...entry.objects, ...kept] };
  return { ...record, entries: [...record.entries.filter((e) => e.work !== entry.work), merged] };
}

/** The record without the entries of `work` (any uid). */
export function withoutWork(record: FenceRecord, work: string): FenceRecord {
  return { ...record, entries: record.entries.filter((e) => e.work !== work) };
}

/** The record with `uids` marked fenced at `atWallMs`. */
export function markedFenced(record: FenceRecord, uids: ReadonlySet<string>, atWallMs: number): FenceRecord {
  const at = new Date(atWallMs).toISOString();
  return {
    ...record,
    entries: record.entries.map((e) =>
      uids.has(e.uid) && e.fencedAt === undefined ? { ...e, fencedAt: at } : e,
    ),
  };
}

/**
 * What tracking a Work needs: `fenced` (its copies were fenced: never apply them again), `record`
 * (the record must list these objects, or this timeout, before they are applied) or `ready` (every
 * object listed already, with this timeout).
 */
export function trackDecision(
  record: FenceRecord,
  entry: Omit<FenceEntry, 'fencedAt'>,
): 'fenced' | 'record' | 'ready' {
  const found = record.entries.find((e) => e.work === entry.work && e.uid === entry.uid);
  if (found?.fencedAt !== undefined) return 'fenced';
  if (found === undefined) return 'record';
  const listed = new Set(found.objects.map(refKey));
  const covered = entry.objects.every((o) => listed.has(refKey(o)));
  return found.fenceSeconds === entry.fenceSeconds && covered ? 'ready' : 'record';
}
