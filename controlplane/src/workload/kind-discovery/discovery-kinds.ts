/**
 * A {@link KindCatalog} backed by the control plane API server's discovery, so that policies can
 * propagate custom resources. Built-in kinds resolve from the static table without a round trip.
 * Any other kind is looked up in the group versions discovered so far; a miss marks the kind as
 * wanted and wakes the discovery loop, which reads that group version (at most once per
 * `minRefreshMs`, 5 s by default) until the kind is served: a CRD installed after the policy
 * is picked up within a few seconds, with no restart and no CRD watch (hence no extra RBAC).
 * Discovery failures are logged and retried at the next round; they never stop the process.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { getJson, isNotFound, type ResourceDescriptor } from '@kf/kube';
import { systemClock, whenAborted, type Clock, type Logger } from '@kf/runtime';
import { builtInKinds, type KindCatalog, type KindResolver } from '../kinds.ts';
import { typeKey } from '../template.ts';
import {
  discoveryPathOf,
  dueGroupVersions,
  isDiscoverableApiVersion,
  kindsOfResourceList,
  nextRoundInMs,
} from './resource-list.ts';
import { controlPlaneTransport } from '../../connections.ts';

/** Reads one group version's `APIResourceList`; undefined when the server does not serve it. */
export type FetchGroupVersion = (apiVersion: string, signal: AbortSignal) => Promise<unknown>;

/** How often a kind that is still missing may cost a discovery request (per group version). */
export const DEFAULT_MIN_REFRESH_MS = 5_000;

export interface DiscoveryKindsOptions {
  readonly fetch: FetchGroupVersion;
  readonly log: Logger;
  readonly clock?: Clock;
  /** Kinds known without discovery (default: the built-in table). */
  readonly fallback?: KindResolver;
  readonly minRefreshMs?: number;
}

export class DiscoveryKinds implements KindCatalog {
  private readonly opts: DiscoveryKindsOptions;
  private readonly clock: Clock;
  private readonly minRefreshMs: number;
  /** What discovery said per group version (absent: never read, or not served). */
  private readonly served = new Map<string, ReadonlyMap<string, ResourceDescriptor>>();
  private readonly fetchedAtMs = new Map<string, number>();
  /** Kinds looked up and not found, by type key. */
  private readonly wanted = new Map<string, { readonly apiVersion: string; readonly kind: string }>();
  private readonly handlers = new Set<() => void>();
  private wake: (() => void) | undefined;

  constructor(opts: DiscoveryKindsOptions) {
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    this.minRefreshMs = opts.minRefreshMs ?? DEFAULT_MIN_REFRESH_MS;
  }

  readonly resolve: KindResolver = (apiVersion, kind) => {
    const known =
      (this.opts.fallback ?? builtInKinds)(apiVersion, kind) ?? this.served.get(apiVersion)?.get(kind);
    if (known !== undefined) return known;
    if (isDiscoverableApiVersion(apiVersion) && kind !== '') {
      const key = typeKey(apiVersion, kind);
      if (!this.wanted.has(key)) {
        this.wanted.set(key, { apiVersion, kind });
        this.wake?.();
      }
    }
    return undefined;
  };

  onLearned(handler: () => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Kinds looked up but not served (yet), as type keys: what the loop keeps asking about. */
  missing(): readonly string[] {
    return [...this.wanted.keys()].sort();
  }

  /** Runs discovery rounds for missing kinds until `signal` aborts (a Manager runnable's `start`). */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.round(signal);
      const waitMs = nextRoundInMs(this.wantedApiVersions(), this.fetchedAtMs, this.now(), this.minRefreshMs);
      await this.pause(waitMs, signal);
    }
  }

  /** Reads every due group version once; tells subscribers when a wanted kind became known. */
  async round(signal: AbortSignal): Promise<void> {
    const due = dueGroupVersions(this.wantedApiVersions(), this.fetchedAtMs, this.now(), this.minRefreshMs);
    let learned = false;
    for (const apiVersion of due) {
      if (signal.aborted) return;
      this.fetchedAtMs.set(apiVersion, this.now());
      try {
        const body = await this.opts.fetch(apiVersion, signal);
        const kinds = kindsOfResourceList(apiVersion, body);
        if (kinds.size === 0) this.served.delete(apiVersion);
        else this.served.set(apiVersion, kinds);
      } catch (err: unknown) {
        if (isStopping(signal)) return;
        // Keep what was known; the group version is due again after minRefreshMs.
        this.opts.log.warn({ err, apiVersion }, 'API discovery failed; retrying');
        continue;
      }
      learned = this.settleWanted(apiVersion) || learned;
    }
    if (learned) for (const h of [...this.handlers]) h();
  }

  /** Drops the wanted kinds of `apiVersion` that are served now; true when there was one. */
  private settleWanted(apiVersion: string): boolean {
    let found = false;
    for (const [key, w] of this.wanted) {
      if (w.apiVersion !== apiVersion) continue;
      const r = this.served.get(apiVersion)?.get(w.kind);
      if (r === undefined) continue;
      this.wanted.delete(key);
      found = true;
      this.opts.log.info(
        { apiVersion, kind: w.kind, plural: r.plural, namespaced: r.namespaced },
        'kind discovered',
      );
    }
    return found;
  }

  private wantedApiVersions(): string[] {
    return [...this.wanted.values()].map((w) => w.apiVersion);
  }

  private now(): number {
    return this.clock.monotonic();
  }

  /** Waits `ms` (or, when undefined, until a lookup misses), a miss, or the end. */
  private async pause(ms: number | undefined, signal: AbortSignal): Promise<void> {
    const stop = new AbortController();
    const woken = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    const timers: Promise<unknown>[] = [woken, whenAborted(signal, stop.signal)];
    if (ms !== undefined) timers.push(this.clock.sleep(ms, stop.signal).catch(() => undefined));
    try {
      await Promise.race(timers);
    } finally {
      this.wake = undefined;
      stop.abort();
    }
  }
}

/**
 * Read again after a call: the fetch may have failed because the signal aborted meanwhile (a
 * plain `signal.aborted` here is narrowed to false by the loop's earlier check).
 */
function isStopping(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** The catalog of a process: discovery of the API server `kubeConfig` points at. */
export function discoveryKinds(
  kubeConfig: KubeConfig,
  log: Logger,
  opts: { readonly clock?: Clock; readonly minRefreshMs?: number } = {},
): { readonly kinds: DiscoveryKinds; readonly run: (signal: AbortSignal) => Promise<void> } {
  const transport = controlPlaneTransport(kubeConfig);
  const fetch: FetchGroupVersion = async (apiVersion, signal) => {
    try {
      return await getJson(transport, discoveryPathOf(apiVersion), { signal, timeoutMs: 15_000 });
    } catch (err: unknown) {
      if (isNotFound(err)) return undefined; // no such group version (yet)
      throw err;
    }
  };
  const kinds = new DiscoveryKinds({ fetch, log, ...opts });
  return {
    kinds,
    run: async (signal) => {
      try {
        await kinds.run(signal);
      } finally {
        await transport.close();
      }
    },
  };
}
