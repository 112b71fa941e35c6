/**
 * Everything a host keeps open towards one member API server: raw HTTP for probes and discovery,
 * the node and pod caches of the status summaries, the caches and clients of the objects Works
 * put there (one watch per kind in use), and the REST mapping of Work manifests. The agent opens
 * one for its own cluster; the control plane one per Push cluster, closed when it leaves.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { WatchCacheMetrics } from '@kf/kube';
import type { Logger } from '@kf/runtime';
import { discoverMember } from '../member/discovery.ts';
import { MemberInventory } from '../member/inventory.ts';
import { MemberHttp } from '../member/member-http.ts';
import { MemberObjects } from '../member/member-objects.ts';
import { MemberRestMapper } from '../member/rest-mapper.ts';

export interface MemberConnection {
  readonly kubeConfig: KubeConfig;
  readonly http: MemberHttp;
  readonly inventory: MemberInventory;
  readonly objects: MemberObjects;
  readonly mapper: MemberRestMapper;
}

export interface ConnectionOptions {
  readonly log: Logger;
  readonly monotonic: () => number;
  readonly watchMetrics?: WatchCacheMetrics;
}

/** Opens nothing yet: caches start on first use, HTTP connections on the first request. */
export function openMemberConnection(kubeConfig: KubeConfig, o: ConnectionOptions): MemberConnection {
  const http = new MemberHttp(kubeConfig);
  return {
    kubeConfig,
    http,
    inventory: new MemberInventory(kubeConfig, o.log.child({ component: 'inventory' }), o.watchMetrics),
    objects: new MemberObjects(kubeConfig, o.log.child({ component: 'member-objects' }), o.watchMetrics),
    mapper: new MemberRestMapper(() => discoverMember(http, o.log), o.monotonic),
  };
}

/** Closes the inventory's caches and the HTTP connections (the object caches stop with their runnable). */
export async function closeMemberConnection(c: MemberConnection): Promise<void> {
  await Promise.allSettled([c.inventory.close(), c.http.close()]);
}
