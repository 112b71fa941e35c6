/** cluster.karmada.io/v1alpha1 Cluster: a member cluster as the control plane sees it. */
import { defineKind } from './kind.ts';
import type {
  Condition,
  KarmadaObject,
  LocalSecretReference,
  Quantity,
  ResourceList,
  Taint,
} from './meta.ts';

export type SyncMode = 'Push' | 'Pull';

export const syncModes = { push: 'Push', pull: 'Pull' } as const satisfies Record<string, SyncMode>;

export interface ResourceModelRange {
  /** Resource name, e.g. `cpu` or `memory`. */
  readonly name: string;
  /** Inclusive lower bound. */
  readonly min: Quantity;
  /** Exclusive upper bound. */
  readonly max: Quantity;
}

/** One grade of the resource model used to count allocatable node shapes. */
export interface ResourceModel {
  readonly grade: number;
  readonly ranges: readonly ResourceModelRange[];
}

export interface ClusterSpec {
  /** Unique cluster identity; the agent writes the member's kube-system namespace UID. */
  readonly id?: string;
  readonly syncMode: SyncMode;
  readonly apiEndpoint?: string;
  /** Secret with keys `token` and `caBundle` to reach the member (Push mode). */
  readonly secretRef?: LocalSecretReference;
  /** Secret with key `token` used to impersonate users on the member. */
  readonly impersonatorSecretRef?: LocalSecretReference;
  readonly insecureSkipTLSVerification?: boolean;
  /** `http`, `https` or `socks5` proxy URL. */
  readonly proxyURL?: string;
  readonly proxyHeader?: Readonly<Record<string, string>>;
  readonly provider?: string;
  readonly region?: string;
  /** Deprecated in favour of `zones`; upstream moves it into `zones` on write. */
  readonly zone?: string;
  readonly zones?: readonly string[];
  readonly taints?: readonly Taint[];
  readonly resourceModels?: readonly ResourceModel[];
}

export interface APIResource {
  readonly name: string;
  readonly kind: string;
}

export interface APIEnablement {
  readonly groupVersion: string;
  readonly resources?: readonly APIResource[];
}

export interface NodeSummary {
  readonly totalNum?: number;
  readonly readyNum?: number;
}

export interface AllocatableModeling {
  readonly grade: number;
  readonly count: number;
}

export interface ResourceSummary {
  readonly allocatable?: ResourceList;
  readonly allocating?: ResourceList;
  readonly allocated?: ResourceList;
  readonly allocatableModelings?: readonly AllocatableModeling[];
}

/**
 * Cluster conditions come from several writers and upstream does not validate them, so
 * `reason`, `message` and `lastTransitionTime` may be missing on objects written by others.
 */
export type ClusterCondition = Omit<Condition, 'reason' | 'message' | 'lastTransitionTime'> &
  Partial<Pick<Condition, 'reason' | 'message' | 'lastTransitionTime'>>;

export interface ClusterStatus {
  readonly kubernetesVersion?: string;
  readonly apiEnablements?: readonly APIEnablement[];
  readonly conditions?: readonly ClusterCondition[];
  readonly nodeSummary?: NodeSummary;
  readonly resourceSummary?: ResourceSummary;
  /** Written by the remedy controller, e.g. `TrafficControl`. */
  readonly remedyActions?: readonly string[];
}

export type Cluster = KarmadaObject<ClusterSpec, ClusterStatus>;

export const clusterKind = defineKind<Cluster>({
  group: 'cluster.karmada.io',
  version: 'v1alpha1',
  kind: 'Cluster',
  plural: 'clusters',
  namespaced: false,
  specFields: {
    id: true,
    syncMode: true,
    apiEndpoint: true,
    secretRef: true,
    impersonatorSecretRef: true,
    insecureSkipTLSVerification: true,
    proxyURL: true,
    proxyHeader: true,
    provider: true,
    region: true,
    zone: true,
    zones: true,
    taints: true,
    resourceModels: true,
  },
  statusFields: {
    kubernetesVersion: true,
    apiEnablements: true,
    conditions: true,
    nodeSummary: true,
    resourceSummary: true,
    remedyActions: true,
  },
});

/** Condition types found on Clusters. */
export const clusterConditionTypes = {
  ready: 'Ready',
  completeAPIEnablements: 'CompleteAPIEnablements',
  /** Written by the DNS probe; consumed by Remedies. */
  serviceDomainNameResolutionReady: 'ServiceDomainNameResolutionReady',
} as const;

/** Reasons of the `Ready` condition, by writer. */
export const clusterReadyReasons = {
  /** True, status side. */
  clusterReady: 'ClusterReady',
  /** False, status side: reachable but the health endpoint did not answer ok. */
  clusterNotReady: 'ClusterNotReady',
  /** False, status side. */
  clusterNotReachable: 'ClusterNotReachable',
  /** False, agent: could not build a client for the member. */
  statusCollectionFailed: 'StatusCollectionFailed',
  /** Unknown, control plane: status was never posted within the startup grace period. */
  clusterStatusNeverUpdated: 'ClusterStatusNeverUpdated',
  /** Unknown, control plane: status stopped being posted (lease expired). */
  clusterStatusUnknown: 'ClusterStatusUnknown',
} as const;

export const clusterReadyMessages = {
  clusterReady: 'cluster is healthy and ready to accept workloads',
  clusterNotReady: 'cluster is reachable but health endpoint responded without ok',
  clusterNotReachable: 'cluster is not reachable',
  clusterStatusNeverUpdated: 'Cluster status controller never posted cluster status.',
  clusterStatusUnknown: 'Cluster status controller stopped posting cluster status.',
} as const;

/** Reasons of the `CompleteAPIEnablements` condition. */
export const apiEnablementReasons = {
  complete: 'Complete',
  partial: 'Partial',
  empty: 'Empty',
} as const;

/** Reasons of the `ServiceDomainNameResolutionReady` condition. */
export const serviceDomainNameResolutionReasons = {
  ready: 'ServiceDomainNameResolutionReady',
  failed: 'ServiceDomainNameResolutionFailed',
} as const;

export const serviceDomainNameResolutionMessages = {
  ready: 'service domain name resolution is ready',
  failed: 'service domain name resolution is unready',
} as const;

/** Well-known taint keys on Clusters. */
export const clusterTaintKeys = {
  /** Ready is False or absent (NoSchedule by the cluster controller; NoExecute via a ClusterTaintPolicy). */
  notReady: 'cluster.karmada.io/not-ready',
  /** Ready is Unknown. */
  unreachable: 'cluster.karmada.io/unreachable',
  /** Cordoned by an operator (NoSchedule). */
  unschedulable: 'cluster.karmada.io/unschedulable',
} as const;

/** Keys of the Secret named by `spec.secretRef` / `spec.impersonatorSecretRef`. */
export const clusterSecretKeys = {
  token: 'token',
  caBundle: 'caBundle',
} as const;
