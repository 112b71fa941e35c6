/**
 * The MultiClusterIngress side of the TrafficControl remedy: lists in `status.trafficBlockClusters`
 * the clusters hosting a backend Service of the ingress whose `remedyActions` include
 * TrafficControl, and in `status.serviceLocations` where each backend Service is placed (from the
 * ResourceBindings of Services in the ingress's namespace). Fails open: it never blocks every
 * hosting cluster, and says so in an Event.
 * Watches MultiClusterIngresses, Clusters (any change queues every ingress) and ResourceBindings
 * (a Service's binding queues the ingresses of its namespace); writes ingress status only.
 */
import { isSameJson, type Cluster, type MultiClusterIngress, type ResourceBinding } from '@kf/api';
import { keyOf, type EventRecorder, type ResourceClient, type WatchCache } from '@kf/kube';
import { converged, keysFrom, type ControllerSpec } from '@kf/runtime';
import { planIngressTraffic } from '../remedy/traffic-block.ts';

/** Event reason when blocking was skipped because no cluster would be left (not an upstream reason). */
export const TRAFFIC_BLOCK_FAILED_OPEN = 'TrafficBlockFailedOpen';

export interface IngressTrafficDeps {
  readonly ingresses: WatchCache<MultiClusterIngress>;
  readonly clusters: WatchCache<Cluster>;
  readonly resourceBindings: WatchCache<ResourceBinding>;
  readonly ingressClient: ResourceClient<MultiClusterIngress>;
  readonly events: EventRecorder;
}

const isServiceBinding = (b: ResourceBinding): boolean =>
  b.spec.resource.kind === 'Service' && b.spec.resource.apiVersion === 'v1';

export function ingressTrafficController(deps: IngressTrafficDeps): ControllerSpec {
  const allIngresses = (): string[] => deps.ingresses.list().map(keyOf);
  const ingressesIn = (namespace: string | undefined): string[] =>
    deps.ingresses
      .list()
      .filter((i) => i.metadata.namespace === namespace)
      .map(keyOf);
  return {
    name: 'ingress-traffic',
    sources: [
      keysFrom(deps.ingresses, (i) => [keyOf(i)]),
      // Of a Cluster it reads the remedy actions alone (a Cluster's status changes every sync).
      // These two name ingresses the first one names already for the fill and the resync.
      keysFrom(deps.clusters, () => allIngresses(), {
        changed: (c, old) => !isSameJson(c.status?.remedyActions, old.status?.remedyActions),
        listsKeys: false,
      }),
      keysFrom(deps.resourceBindings, (b) => (isServiceBinding(b) ? ingressesIn(b.metadata.namespace) : []), {
        listsKeys: false,
      }),
    ],
    async reconcile(key, { log, signal }) {
      const ingress = deps.ingresses.get(key);
      if (ingress === undefined || ingress.metadata.deletionTimestamp !== undefined) return converged();
      const plan = planIngressTraffic({
        spec: ingress.spec,
        status: ingress.status,
        serviceClusters: serviceClusters(deps.resourceBindings, ingress.metadata.namespace),
        clusterActions: new Map(
          deps.clusters.list().map((c) => [c.metadata.name ?? '', c.status?.remedyActions ?? []]),
        ),
      });
      if (plan.failedOpen !== undefined) {
        const message =
          `Not blocking traffic to ${plan.failedOpen.join(', ')}: that would leave the ingress ` +
          'without any cluster to send traffic to.';
        deps.events.record(ingress, 'Warning', TRAFFIC_BLOCK_FAILED_OPEN, message);
      }
      if (!plan.changed) return converged();
      const { trafficBlockClusters, serviceLocations } = plan.status;
      await deps.ingressClient.patchStatus(
        key,
        {
          status: {
            trafficBlockClusters: trafficBlockClusters ?? null,
            serviceLocations: serviceLocations ?? null,
          },
        },
        { signal },
      );
      log.info({ trafficBlockClusters: trafficBlockClusters ?? [] }, 'ingress traffic status updated');
      return converged();
    },
  };
}

/** Service name → clusters it is placed on, from the Service bindings of one namespace. */
function serviceClusters(
  bindings: WatchCache<ResourceBinding>,
  namespace: string | undefined,
): ReadonlyMap<string, readonly string[]> {
  const map = new Map<string, string[]>();
  for (const b of bindings.list()) {
    if (b.metadata.namespace !== namespace || !isServiceBinding(b)) continue;
    const names = (b.spec.clusters ?? []).map((c) => c.name);
    map.set(b.spec.resource.name, [...(map.get(b.spec.resource.name) ?? []), ...names]);
  }
  return map;
}
