/**
 * What a user applies to the Karmada control plane in the demo: the Deployment `nginx`
 * divided member1:1, member2:2 with cluster failover and fail-back, a Service in front of it on every member, a
 * MultiClusterIngress for it, and a Remedy that stops ingress traffic to a cluster whose DNS fails.
 */
import type { V1Service } from '@kubernetes/client-node';
import { annotations, type MultiClusterIngress, type PropagationPolicy, type Remedy } from '@kf/api';
import { dividedByStaticWeights } from '../placements.ts';

export const DEMO_NAMESPACE = 'default';
export const APP = 'nginx';

/** The fail-back window of the demo's policy: how long member1 must be steady before nginx returns. */
export const DEMO_FAIL_BACK_SECONDS = 15;

/**
 * Divided by static weights member1:1, member2:2; evicted gracefully when its cluster fails, and
 * back to those weights once the cluster has been steady for {@link DEMO_FAIL_BACK_SECONDS}.
 */
export function dividedPolicy(): PropagationPolicy {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: {
      name: `${APP}-propagation`,
      namespace: DEMO_NAMESPACE,
      annotations: { [annotations.failBackAfterSeconds]: String(DEMO_FAIL_BACK_SECONDS) },
    },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: APP }],
      placement: dividedByStaticWeights({ member1: 1, member2: 2 }),
      failover: { cluster: { purgeMode: 'Gracefully' } },
    },
  };
}

/** The Service goes to every member, so the ingress has a backend in each. */
export function servicePolicy(members: readonly string[]): PropagationPolicy {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: `${APP}-service-propagation`, namespace: DEMO_NAMESPACE },
    spec: {
      resourceSelectors: [{ apiVersion: 'v1', kind: 'Service', name: APP }],
      placement: {
        clusterAffinity: { clusterNames: [...members] },
        replicaScheduling: { replicaSchedulingType: 'Duplicated' },
      },
    },
  };
}

export function service(): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: APP, namespace: DEMO_NAMESPACE },
    spec: { selector: { app: APP }, ports: [{ name: 'http', port: 80, targetPort: 80 }] },
  };
}

export function ingress(): MultiClusterIngress {
  return {
    apiVersion: 'networking.karmada.io/v1alpha1',
    kind: 'MultiClusterIngress',
    metadata: { name: APP, namespace: DEMO_NAMESPACE },
    spec: {
      rules: [
        {
          host: 'nginx.example.com',
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: APP, port: { number: 80 } } } },
            ],
          },
        },
      ],
    },
  };
}

/** TrafficControl for any cluster whose in-cluster DNS the probes report broken. */
export function dnsRemedy(): Remedy {
  return {
    apiVersion: 'remedy.karmada.io/v1alpha1',
    kind: 'Remedy',
    metadata: { name: 'dns-failure-traffic-control' },
    spec: {
      decisionMatches: [
        {
          clusterConditionMatch: {
            conditionType: 'ServiceDomainNameResolutionReady',
            operator: 'Equal',
            conditionStatus: 'False',
          },
        },
      ],
      actions: ['TrafficControl'],
    },
  };
}
