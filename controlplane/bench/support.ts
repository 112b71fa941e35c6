/**
 * What the control-plane benchmarks share: running set-up calls side by side, reading placements,
 * and the figures they print from the control plane's /metrics and kube-apiserver's.
 */
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import type { ResourceBinding } from '@kf/api';
import type { FailoverFederation } from '@kf/testing';
import type { KubeObject, ResourceClient } from '@kf/kube';

const execFileAsync = promisify(execFile);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `task(0)` .. `task(count - 1)`, `concurrency` at a time. */
export async function inParallel(
  count: number,
  task: (i: number) => Promise<unknown>,
  concurrency = 16,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** A binding's placement as `cluster:replicas` pairs, sorted and comma-joined. */
export function placementOf(b: ResourceBinding): string {
  return (b.spec.clusters ?? [])
    .map((c) => `${c.name}:${c.replicas ?? 0}`)
    .sort()
    .join(',');
}

/** A metrics family's unlabelled value, or the sum over its label sets; undefined when absent. */
export function metricSum(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
      sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

/** A process's /metrics text, or undefined while it does not answer (restarting, say). */
export async function metricsText(baseUrl: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? await res.text() : undefined;
  } catch {
    return undefined;
  }
}

/** One controller's reconciles, their total seconds, and its work queue's retries. */
export interface ControllerCosts {
  readonly count: number;
  readonly seconds: number;
  readonly retries: number;
  /** Keys reconciled for the first pass over every key or the periodic resync, not a change. */
  readonly passes: number;
}

/** What the control plane has spent so far, from one read of its /metrics. */
export interface ControlPlaneTotals {
  /** Reconciles of all controllers. */
  readonly reconciles: number;
  /** CPU seconds of the process. */
  readonly cpu: number;
  /** Reconciles, their seconds, retries and pass keys, by controller. */
  readonly controllers: ReadonlyMap<string, ControllerCosts>;
}

/** Which figure of {@link ControllerCosts} each metric the totals read adds to. */
const FIELD_OF_METRIC: Readonly<Record<string, keyof ControllerCosts>> = {
  reconcile_duration_seconds_sum: 'seconds',
  reconcile_duration_seconds_count: 'count',
  workqueue_retries_total: 'retries',
  workqueue_pass_keys_total: 'passes',
};

/** A sample of one of those metrics: its name, the controller label, the value. */
const CONTROLLER_SAMPLE = new RegExp(
  `^karmada_failover_(${Object.keys(FIELD_OF_METRIC).join('|')})\\{[^}]*controller="([^"]+)"[^}]*\\} (\\S+)$`,
);

/** Every figure at zero. */
function noCosts(): { -readonly [K in keyof ControllerCosts]: number } {
  return { count: 0, seconds: 0, retries: 0, passes: 0 };
}

/** The control plane's reconciles (in all and by controller) and CPU seconds so far. */
export async function controlPlaneTotals(baseUrl: string): Promise<ControlPlaneTotals> {
  const text = (await metricsText(baseUrl)) ?? '';
  const controllers = new Map<string, ReturnType<typeof noCosts>>();
  for (const line of text.split('\n')) {
    const [, metric = '', controller = '', value = '0'] = CONTROLLER_SAMPLE.exec(line) ?? [];
    const field = FIELD_OF_METRIC[metric];
    if (field === undefined) continue;
    const e = controllers.get(controller) ?? noCosts();
    controllers.set(controller, e);
    e[field] += Number(value);
  }
  let reconciles = 0;
  for (const e of controllers.values()) reconciles += e.count;
  return { reconciles, cpu: metricSum(text, 'process_cpu_seconds_total') ?? 0, controllers };
}

/**
 * One line per controller that reconciled between two reads: reconciles (of them for passes over
 * every key), their total seconds and retries (`since` empty: since the process started).
 */
export function controllerBreakdown(now: ControlPlaneTotals, since?: ControlPlaneTotals): string[] {
  return [...now.controllers]
    .map(([c, e]): [string, ControllerCosts] => {
      const b = since?.controllers.get(c);
      const d = noCosts();
      for (const field of Object.values(FIELD_OF_METRIC)) d[field] = e[field] - (b?.[field] ?? 0);
      return [c, d];
    })
    .filter(([, e]) => e.count > 0)
    .map(
      ([c, e]) =>
        `${c}: ${e.count} reconciles (${e.passes} for passes over every key), ${e.seconds.toFixed(1)} s, ${e.retries} retries`,
    );
}

/** What the last failed poll said, to append to a timeout's message; empty when none failed. */
function lastFailure(err: unknown): string {
  if (err === undefined) return '';
  return ` (last poll failed: ${err instanceof Error ? err.message : JSON.stringify(err)})`;
}

export interface UntilOptions {
  /** The `performance.now()` the timeout and the progress lines count from (default: the call). */
  readonly from?: number;
  /** Default 60 minutes: a phase of a large run. */
  readonly timeoutMs?: number;
  /** Between polls (default 100 ms). */
  readonly pauseMs?: number;
  /** How far the wait got (`412/1000`), for the timeout error and the progress lines. */
  readonly progress?: () => string;
  /** Where a progress line goes every 30 s, so that a long phase shows its trend without flooding. */
  readonly log?: (line: string) => void;
}

/**
 * Polls `done` until it holds; returns the `performance.now()` it held at. A poll that fails
 * counts as not yet (an API server under the bench's load answers late or not at all), and the
 * last failure is named when the wait times out.
 */
export async function until(
  what: string,
  done: () => Promise<boolean>,
  opts: UntilOptions = {},
): Promise<number> {
  const from = opts.from ?? performance.now();
  const timeoutMs = opts.timeoutMs ?? 60 * 60_000;
  const progress = opts.progress ?? (() => 'not yet');
  let loggedAt = from;
  let failure: unknown;
  for (;;) {
    const held = await done().catch((err: unknown) => {
      failure = err;
      return false;
    });
    const now = performance.now();
    if (held) return now;
    const seconds = ((now - from) / 1000).toFixed(1);
    if (opts.log !== undefined && now - loggedAt >= 30_000) {
      opts.log(`${what}: ${progress()} after ${seconds} s`);
      loggedAt = now;
    }
    if (now - from > timeoutMs) {
      throw new Error(`${what}: ${progress()} after ${seconds} s${lastFailure(failure)}`);
    }
    await sleep(opts.pauseMs ?? 100);
  }
}

/**
 * Polls `count` until it reaches `target`, with the count as progress; returns the seconds since
 * `opts.from`.
 */
export async function untilCount(
  what: string,
  count: () => Promise<number>,
  target: number,
  opts: UntilOptions & { readonly from: number },
): Promise<number> {
  let n = 0;
  await until(what, async () => (n = await count()) >= target, { ...opts, progress: () => `${n}/${target}` });
  return (performance.now() - opts.from) / 1000;
}

/**
 * Waits until every work queue of the process (with `events`, its queue of Events to write too)
 * has stayed empty for 2 s; the seconds from `from` (a `performance.now()`) to the moment they
 * emptied.
 */
export async function waitForIdle(
  baseUrl: string,
  from: number,
  opts: { readonly timeoutMs?: number; readonly events?: boolean } = {},
): Promise<number> {
  const timeoutMs = opts.timeoutMs ?? 60 * 60_000;
  const families = [
    'karmada_failover_workqueue_depth',
    ...(opts.events === true ? ['karmada_failover_events_pending'] : []),
  ];
  let idleSince: number | undefined;
  for (;;) {
    const text = await metricsText(baseUrl);
    const depth =
      text === undefined ? undefined : families.reduce((n, f) => n + (metricSum(text, f) ?? 0), 0);
    const now = performance.now();
    if (depth !== 0) idleSince = undefined;
    else idleSince ??= now;
    if (idleSince !== undefined && now - idleSince >= 2_000) return (idleSince - from) / 1000;
    if (now - from > timeoutMs) throw new Error(`work queues still hold ${depth ?? '?'} keys`);
    await sleep(250);
  }
}

/** The control plane's kube-apiserver's /metrics (read with kubectl). */
export async function apiServerMetrics(fed: FailoverFederation): Promise<string> {
  const cp = fed.federation.controlPlane;
  const { stdout } = await execFileAsync(cp.kubectlPath, cp.kubectlArgs('get', '--raw', '/metrics'), {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** Counts by a label set, e.g. `POST works 201`. */
export type Samples = Map<string, number>;

const WRITE_VERBS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const READ_VERBS: ReadonlySet<string> = new Set(['GET', 'LIST']);

/** kube-apiserver's write requests so far, by verb, resource (and subresource) and code. */
export function apiWrites(text: string): Samples {
  return apiRequests(text, WRITE_VERBS);
}

/** kube-apiserver's reads so far (GET and LIST; not WATCH), by verb, resource and code. */
export function apiReads(text: string): Samples {
  return apiRequests(text, READ_VERBS);
}

function apiRequests(text: string, verbs: ReadonlySet<string>): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const label = (name: string): string => new RegExp(`${name}="([^"]*)"`).exec(line)?.[1] ?? '';
    const verb = label('verb');
    if (!verbs.has(verb)) continue;
    const sub = label('subresource');
    const key = `${verb} ${label('resource')}${sub === '' ? '' : `/${sub}`} ${label('code')}`;
    out.set(key, (out.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

/** What grew from `before` to `after`. */
export function grownSince(after: Samples, before: Samples): Samples {
  const out: Samples = new Map();
  for (const [k, v] of after) {
    const grown = v - (before.get(k) ?? 0);
    if (grown > 0) out.set(k, grown);
  }
  return out;
}

/** The sum of the samples whose key `pick` accepts. */
export function sumOf(samples: Samples, pick: (key: string) => boolean = () => true): number {
  let n = 0;
  for (const [k, v] of samples) if (pick(k)) n += v;
  return n;
}

/**
 * The size of a run over simulated members: `--bindings` and `--members`, by default from
 * `<envPrefix>_BINDINGS` and `<envPrefix>_MEMBERS`, else `defaults`; at least 1 binding and 2
 * members (bindings are divided over pairs of members).
 */
/**
 * A benchmark's string flags, `--name=value`, each defaulting to `$<envPrefix>_<NAME>` (upper
 * case, dashes as underscores) or else to the value given.
 */
export function benchFlags<K extends string>(
  envPrefix: string,
  defaults: Readonly<Record<K, string>>,
): Readonly<Record<K, string>> {
  const names = Object.keys(defaults) as K[];
  const envOf = (k: K): string | undefined =>
    process.env[`${envPrefix}_${k.toUpperCase().replaceAll('-', '_')}`];
  const { values } = parseArgs({
    options: Object.fromEntries(
      names.map((k) => [k, { type: 'string' as const, default: envOf(k) ?? defaults[k] }]),
    ),
  });
  return Object.fromEntries(names.map((k) => [k, String(values[k])])) as Record<K, string>;
}

export function runSize(
  envPrefix: string,
  defaults: { readonly bindings: number; readonly members: number },
): { readonly bindings: number; readonly members: number } {
  const { values } = parseArgs({
    options: {
      bindings: {
        type: 'string',
        default: process.env[`${envPrefix}_BINDINGS`] ?? String(defaults.bindings),
      },
      members: { type: 'string', default: process.env[`${envPrefix}_MEMBERS`] ?? String(defaults.members) },
    },
  });
  const bindings = Number(values.bindings);
  const members = Number(values.members);
  if (!Number.isInteger(bindings) || bindings < 1 || !Number.isInteger(members) || members < 2) {
    throw new Error('--bindings must be at least 1 and --members at least 2');
  }
  return { bindings, members };
}

/** Seconds since `t` (a `performance.now()`). */
export const since = (t: number): number => (performance.now() - t) / 1000;
/** Seconds to one decimal. */
export const secs = (s: number): string => s.toFixed(1);
/** Bytes in whole MiB. */
export const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

/** A large run's phase may take this long before its wait gives up. */
export const PHASE_TIMEOUT_MS = 60 * 60_000;

/** Waits until `count` reaches `target`; seconds from `timing.from` (a `performance.now()`). */
export type PhaseWait = (
  what: string,
  count: () => Promise<number>,
  target: number,
  timing: { readonly from: number; readonly pauseMs: number },
) => Promise<number>;

/**
 * A benchmark's two outputs: progress lines on stderr, prefixed with its name, and result lines on
 * stdout; and its phase waits ({@link untilCount} with the phase timeout, progress going to `log`).
 */
export function benchOutput(name: string): {
  readonly log: (msg: string) => void;
  readonly print: (line: string) => void;
  readonly untilPhase: PhaseWait;
} {
  const log = (msg: string): void => {
    process.stderr.write(`[${name}] ${msg}\n`);
  };
  return {
    log,
    print: (line) => {
      process.stdout.write(`${line}\n`);
    },
    untilPhase: (what, count, target, timing) =>
      untilCount(what, count, target, { ...timing, timeoutMs: PHASE_TIMEOUT_MS, log }),
  };
}

/** Calls `visit` for every object of a list, one page of 500 at a time. */
export async function forEachListed<T extends KubeObject>(
  client: ResourceClient<T>,
  namespace: string | undefined,
  visit: (obj: T) => void,
): Promise<void> {
  let cont: string | undefined;
  do {
    const page = await client.listPage({
      ...(namespace === undefined ? {} : { namespace }),
      ...(cont === undefined ? {} : { continue: cont }),
    });
    page.items.forEach(visit);
    cont = page.continue;
  } while (cont !== undefined);
}
