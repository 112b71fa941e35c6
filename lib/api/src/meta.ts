/**
 * Shapes shared by every group: object metadata, conditions, taints, tolerations and selectors,
 * with the JSON names of k8s.io/apimachinery and k8s.io/api/core/v1.
 */

/** RFC 3339 timestamp with second precision, e.g. `2024-01-25T04:05:57Z` (metav1.Time). */
export type Time = string;

/** RFC 3339 timestamp with exactly six fractional digits (metav1.MicroTime, used by Leases). */
export type MicroTime = string;

/** A Kubernetes quantity in canonical string form (`100m`, `4Gi`) or a plain integer. */
export type Quantity = string | number;

/** Resource name (`cpu`, `memory`, `pods`, ...) to quantity. */
export type ResourceList = Readonly<Record<string, Quantity>>;

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly creationTimestamp?: Time;
  readonly deletionTimestamp?: Time;
  readonly deletionGracePeriodSeconds?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly finalizers?: readonly string[];
}

/**
 * A Karmada API object. `apiVersion` and `kind` are optional because some list responses omit
 * them on items; objects this project writes always carry both.
 */
export interface KarmadaObject<Spec, Status> {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec: Spec;
  readonly status?: Status;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export const conditionStatuses = {
  true: 'True',
  false: 'False',
  unknown: 'Unknown',
} as const satisfies Record<string, ConditionStatus>;

/** metav1.Condition. */
export interface Condition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly observedGeneration?: number;
  readonly lastTransitionTime: Time;
  readonly reason: string;
  readonly message: string;
}

/** Effects a Karmada cluster taint may have (`PreferNoSchedule` is rejected on Clusters). */
export type TaintEffect = 'NoSchedule' | 'NoExecute';

/** Effects a toleration may name; empty means "every effect". */
export type TolerationEffect = '' | 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export const taintEffects = {
  noSchedule: 'NoSchedule',
  noExecute: 'NoExecute',
} as const satisfies Record<string, TaintEffect>;

/** core/v1 Taint as used on `Cluster.spec.taints`. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: TaintEffect;
  /** Set for NoExecute taints: when the taint was added (toleration timers start here). */
  readonly timeAdded?: Time;
}

/** `Equal` (the default when empty) compares values; `Exists` matches any value. */
export type TolerationOperator = '' | 'Equal' | 'Exists';

/** core/v1 Toleration. */
export interface Toleration {
  readonly key?: string;
  readonly operator?: TolerationOperator;
  readonly value?: string;
  readonly effect?: TolerationEffect;
  /** Only meaningful with effect NoExecute: how long the taint is tolerated after `timeAdded`. */
  readonly tolerationSeconds?: number;
}

export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values?: readonly string[];
}

/** metav1.LabelSelector: an empty selector matches everything. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

export type NodeSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

/** core/v1 NodeSelectorRequirement. */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: NodeSelectorOperator;
  readonly values?: readonly string[];
}

export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

/** core/v1 NodeSelector: the terms are ORed. */
export interface NodeSelector {
  readonly nodeSelectorTerms: readonly NodeSelectorTerm[];
}

/** A reference to a Secret by namespace and name. */
export interface LocalSecretReference {
  readonly namespace: string;
  readonly name: string;
}
