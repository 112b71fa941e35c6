/**
 * The MultiClusterIngress side of the `TrafficControl` remedy: which clusters an ingress must stop
 * sending traffic to (`status.trafficBlockClusters`) and where its backend Services run
 * (`status.serviceLocations`). Upstream leaves this to an external cloud provider; the rule it
 * follows is: a cluster that hosts a backend Service of the ingress and whose `remedyActions`
 * include `TrafficControl` is blocked, and is unblocked when the action goes away.
 *
 * Addition: fail open. When blocking would leave no unblocked cluster for the ingress's backends,
 * nothing is blocked and the plan says so: a load balancer with no backends is a certain outage,
 * while a cluster whose DNS probe fails may still serve some requests. This mirrors how load
 * balancers treat "every target unhealthy" (Envoy's panic threshold, cloud balancers' fail-open).
 * Pass `failOpen: false` for upstream's strict behaviour.
 */
import {
  remedyActions,
  type IngressBackend,
  type MultiClusterIngressSpec,
  type MultiClusterIngressStatus,
  type ServiceLocation,
} from '@kf/api';

/** The names of the Services an ingress routes to (default backend and every rule path), sorted. */
export function listBackendServices(spec: MultiClusterIngressSpec): readonly string[] {
  const backends: IngressBackend[] = [];
  if (spec.defaultBackend !== undefined) backends.push(spec.defaultBackend);
  for (const rule of spec.rules ?? []) {
    for (const path of rule.http?.paths ?? []) backends.push(path.backend);
  }
  const names = backends.map((b) => b.service?.name).filter((n): n is string => n !== undefined && n !== '');
  return [...new Set(names)].sort();
}

export interface IngressTrafficInput {
  readonly spec: MultiClusterIngressSpec;
  readonly status: MultiClusterIngressStatus | undefined;
  /** Service name (in the ingress's namespace) → clusters it is placed on; absent: unknown, none. */
  readonly serviceClusters: ReadonlyMap<string, readonly string[]>;
  /** Cluster name → its `status.remedyActions`. */
  readonly clusterActions: ReadonlyMap<string, readonly string[]>;
  /** Block nothing rather than every backend cluster (default true). */
  readonly failOpen?: boolean;
}

export interface IngressTrafficPlan {
  /** The new status: `loadBalancer` kept, the two remedy fields recomputed. */
  readonly status: MultiClusterIngressStatus;
  /** True when either remedy field differs from the current status. */
  readonly changed: boolean;
  /** Clusters that would have been blocked had fail-open not applied (for an Event). */
  readonly failedOpen?: readonly string[];
}

/** Computes an ingress's `trafficBlockClusters` and `serviceLocations`. */
export function planIngressTraffic(input: IngressTrafficInput): IngressTrafficPlan {
  const serviceLocations = locateServices(listBackendServices(input.spec), input.serviceClusters);
  const hosting = [...new Set(serviceLocations.flatMap((l) => l.clusters ?? []))].sort();
  const wanted = hosting.filter(
    (c) => input.clusterActions.get(c)?.includes(remedyActions.trafficControl) === true,
  );
  const failOpen = (input.failOpen ?? true) && wanted.length > 0 && wanted.length === hosting.length;
  const trafficBlockClusters = failOpen ? [] : wanted;
  const status = buildStatus(input.status, trafficBlockClusters, serviceLocations);
  const changed = isRemedyStatusChanged(input.status, status);
  return { status, changed, ...(failOpen ? { failedOpen: wanted } : {}) };
}

/** `loadBalancer` kept as it is; empty lists omitted. */
function buildStatus(
  current: MultiClusterIngressStatus | undefined,
  trafficBlockClusters: readonly string[],
  serviceLocations: readonly ServiceLocation[],
): MultiClusterIngressStatus {
  const loadBalancer = current?.loadBalancer;
  return {
    ...(loadBalancer === undefined ? {} : { loadBalancer }),
    ...(trafficBlockClusters.length === 0 ? {} : { trafficBlockClusters }),
    ...(serviceLocations.length === 0 ? {} : { serviceLocations }),
  };
}

function isRemedyStatusChanged(
  current: MultiClusterIngressStatus | undefined,
  next: MultiClusterIngressStatus,
): boolean {
  return (
    !sameList(current?.trafficBlockClusters ?? [], next.trafficBlockClusters ?? []) ||
    !sameLocations(current?.serviceLocations ?? [], next.serviceLocations ?? [])
  );
}

/** One location per service, clusters sorted and de-duplicated; `clusters` omitted when none. */
function locateServices(
  services: readonly string[],
  serviceClusters: ReadonlyMap<string, readonly string[]>,
): readonly ServiceLocation[] {
  return services.map((name) => {
    const clusters = [...new Set(serviceClusters.get(name) ?? [])].sort();
    return clusters.length === 0 ? { name } : { name, clusters };
  });
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameLocations(a: readonly ServiceLocation[], b: readonly ServiceLocation[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i];
      return y !== undefined && x.name === y.name && sameList(x.clusters ?? [], y.clusters ?? []);
    })
  );
}
