/**
 * Member API discovery: aggregated discovery (apidiscovery.k8s.io/v2, two requests) with a
 * fallback to the per-group-version documents of older servers.
 */
import type { Logger } from '@kf/runtime';
import type {
  DiscoveredGroupVersion,
  DiscoveredResource,
  Discovery,
} from '../controllers/cluster-status/api-enablements.ts';
import type { MemberHttp } from './member-http.ts';

const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;q=0.9';

interface AggregatedList {
  readonly kind?: string;
  readonly items?: readonly {
    readonly metadata?: { readonly name?: string };
    readonly versions?: readonly {
      readonly version: string;
      readonly freshness?: string;
      readonly resources?: readonly {
        readonly resource: string;
        readonly scope?: string;
        readonly responseKind?: { readonly kind?: string };
      }[];
    }[];
  }[];
}

interface LegacyResourceList {
  readonly resources?: readonly {
    readonly name: string;
    readonly kind: string;
    readonly namespaced?: boolean;
  }[];
}

/** Every served group version and its resources; `partial` when some part could not be read. */
export async function discoverMember(
  http: MemberHttp,
  log: Logger,
  signal?: AbortSignal,
): Promise<Discovery> {
  const results = await Promise.allSettled([
    aggregated(http, '/api', signal),
    aggregated(http, '/apis', signal),
  ]);
  const lists = results.flatMap((r) => (r.status === 'fulfilled' && r.value !== undefined ? [r.value] : []));
  if (lists.length === 2) return fromAggregated(lists);
  for (const r of results)
    if (r.status === 'rejected') log.debug({ err: r.reason as unknown }, 'aggregated discovery failed');
  signal?.throwIfAborted();
  return legacy(http, log, signal);
}

async function aggregated(
  http: MemberHttp,
  path: string,
  signal: AbortSignal | undefined,
): Promise<AggregatedList | undefined> {
  const body = await http.getJson<AggregatedList>(path, {
    accept: AGGREGATED_ACCEPT,
    timeoutMs: 15_000,
    ...(signal === undefined ? {} : { signal }),
  });
  return body.kind === 'APIGroupDiscoveryList' ? body : undefined;
}

function fromAggregated(lists: readonly AggregatedList[]): Discovery {
  const groupVersions: DiscoveredGroupVersion[] = [];
  let partial = false;
  const groups = lists.flatMap((l) => l.items ?? []);
  for (const group of groups) {
    const name = group.metadata?.name ?? '';
    for (const v of group.versions ?? []) {
      if (v.freshness === 'Stale') partial = true;
      groupVersions.push({
        groupVersion: name === '' ? v.version : `${name}/${v.version}`,
        resources: (v.resources ?? []).map((r): DiscoveredResource => ({
          name: r.resource,
          kind: r.responseKind?.kind ?? '',
          namespaced: r.scope === 'Namespaced',
        })),
      });
    }
  }
  return { groupVersions, partial };
}

async function legacy(http: MemberHttp, log: Logger, signal: AbortSignal | undefined): Promise<Discovery> {
  const gvs: string[] = [];
  let partial = false;
  const opts = signal === undefined ? {} : { signal };
  try {
    const core = await http.getJson<{ versions?: string[] }>('/api', opts);
    gvs.push(...(core.versions ?? []));
    const groups = await http.getJson<{ groups?: { versions?: { groupVersion: string }[] }[] }>(
      '/apis',
      opts,
    );
    for (const g of groups.groups ?? []) for (const v of g.versions ?? []) gvs.push(v.groupVersion);
  } catch (err: unknown) {
    log.debug({ err }, 'discovery of group versions failed');
    partial = true;
  }
  const settled = await Promise.allSettled(
    gvs.map(async (gv): Promise<DiscoveredGroupVersion> => {
      const path = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
      const body = await http.getJson<LegacyResourceList>(path, { timeoutMs: 15_000, ...opts });
      return {
        groupVersion: gv,
        resources: (body.resources ?? []).map((r) => ({
          name: r.name,
          kind: r.kind,
          namespaced: r.namespaced === true,
        })),
      };
    }),
  );
  const groupVersions = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  return { groupVersions, partial: partial || groupVersions.length < gvs.length };
}

/** `gitVersion` of `/version`, or `''` when it cannot be read (the field is then cleared). */
export async function memberVersion(http: MemberHttp, log: Logger, signal?: AbortSignal): Promise<string> {
  try {
    const opts = signal === undefined ? {} : { signal };
    return (await http.getJson<{ gitVersion?: string }>('/version', opts)).gitVersion ?? '';
  } catch (err: unknown) {
    log.debug({ err }, 'reading /version failed');
    return '';
  }
}
