/**
 * Node and resource summaries of a member cluster (Cluster.status.nodeSummary / resourceSummary)
 * from plain views of its nodes and pods, with upstream karmada-agent's arithmetic.
 */
import {
  formatQuantity,
  parseQuantity,
  type NodeSummary,
  type QuantityFormat,
  type ResourceList,
  type ResourceModel,
  type ResourceSummary,
} from '@kf/api';

/** What the summary needs of a Node. */
export interface NodeView {
  readonly name: string;
  /** The Node's `Ready` condition is `True`. */
  readonly ready: boolean;
  readonly allocatable: ResourceList;
}

/** What the summary needs of a Pod. */
export interface PodView {
  /** `spec.nodeName`; empty while the pod waits for a node. */
  readonly nodeName: string;
  readonly phase: string;
  /** `resources.requests` of each app container. */
  readonly containers: readonly ResourceList[];
  /** `resources.requests` of each init container. */
  readonly initContainers: readonly ResourceList[];
  readonly overhead?: ResourceList;
}

export interface ClusterSummary {
  readonly nodeSummary: NodeSummary;
  readonly resourceSummary: ResourceSummary;
}

/** Totals by resource name, in milli-units. */
type Totals = Map<string, bigint>;

/**
 * Summarises nodes and pods:
 * - nodeSummary: node count and Ready node count (zeros omitted, as upstream's omitempty);
 * - allocatable: per resource, the sum over nodes of `status.allocatable`;
 * - allocating: requests of pods without a node (any phase), plus `pods` = their count;
 * - allocated: requests of pods on a node and not Succeeded/Failed, plus `pods` = their count;
 * - allocatableModelings: only when `models` is non-empty (see {@link countModelings}).
 * Requests accumulate as upstream does: app containers added, then each init container's request
 * raises the running total to at least that value, then overhead added.
 */
export function summarizeCluster(
  nodes: readonly NodeView[],
  pods: readonly PodView[],
  models: readonly ResourceModel[] = [],
): ClusterSummary {
  const allocating: Totals = new Map();
  const allocated: Totals = new Map();
  for (const pod of pods) {
    if (pod.nodeName === '') addPod(allocating, pod);
    else if (isActive(pod)) addPod(allocated, pod);
  }
  const readyNum = nodes.filter((n) => n.ready).length;
  const modelings = models.length === 0 ? undefined : countModelings(nodes, pods, models);
  const resourceSummary: ResourceSummary = {
    ...optional('allocatable', sumAllocatable(nodes)),
    ...optional('allocating', toResourceList(allocating)),
    ...optional('allocated', toResourceList(allocated)),
    ...(modelings === undefined ? {} : { allocatableModelings: modelings }),
  };
  return {
    nodeSummary: {
      ...(nodes.length === 0 ? {} : { totalNum: nodes.length }),
      ...(readyNum === 0 ? {} : { readyNum }),
    },
    resourceSummary,
  };
}

function optional<K extends string>(
  key: K,
  list: ResourceList | undefined,
): Partial<Record<K, ResourceList>> {
  return list === undefined ? {} : ({ [key]: list } as Record<K, ResourceList>);
}

function isActive(pod: PodView): boolean {
  return pod.phase !== 'Succeeded' && pod.phase !== 'Failed';
}

/** Names upstream tracks: the four first-class resources and extended/huge-page/volume ones. */
export function isTrackedResource(name: string): boolean {
  return (
    name === 'cpu' ||
    name === 'memory' ||
    name === 'ephemeral-storage' ||
    name === 'pods' ||
    name.startsWith('hugepages-') ||
    name.startsWith('attachable-volumes-') ||
    name.includes('/')
  );
}

/** The format upstream prints a summed request in. */
export function requestFormat(name: string): QuantityFormat {
  if (name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-')) return 'BinarySI';
  return 'DecimalSI';
}

function addPod(totals: Totals, pod: PodView): void {
  for (const requests of pod.containers) addList(totals, requests);
  for (const requests of pod.initContainers) {
    for (const [name, q] of Object.entries(requests)) {
      const milli = parseQuantity(q)?.milli;
      if (milli === undefined || !isTrackedResource(name)) continue;
      if (milli > (totals.get(name) ?? 0n)) totals.set(name, milli);
    }
  }
  if (pod.overhead !== undefined) addList(totals, pod.overhead);
  totals.set('pods', (totals.get('pods') ?? 0n) + 1000n);
}

function addList(totals: Totals, list: ResourceList): void {
  for (const [name, q] of Object.entries(list)) {
    const milli = parseQuantity(q)?.milli;
    if (milli === undefined || !isTrackedResource(name)) continue;
    totals.set(name, (totals.get(name) ?? 0n) + milli);
  }
}

/**
 * Resource names in byte order, as Go's JSON encoder writes map keys (and without
 * `localeCompare`, whose first call maps several MB of ICU collation data into the process).
 */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Positive totals only, in upstream's formats; undefined when nothing is left. */
function toResourceList(totals: Totals): ResourceList | undefined {
  const entries = [...totals]
    .filter(([, milli]) => milli > 0n)
    .sort(([a], [b]) => byCodeUnits(a, b))
    .map(([name, milli]) => [name, formatQuantity(milli, requestFormat(name))] as const);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** Every resource key of every node, summed; printed in the format of its first occurrence. */
function sumAllocatable(nodes: readonly NodeView[]): ResourceList | undefined {
  const sums = new Map<string, { milli: bigint; format: QuantityFormat }>();
  for (const node of nodes) {
    for (const [name, q] of Object.entries(node.allocatable)) {
      const parsed = parseQuantity(q);
      if (parsed === undefined) continue;
      const sum = sums.get(name);
      sums.set(name, { milli: (sum?.milli ?? 0n) + parsed.milli, format: sum?.format ?? parsed.format });
    }
  }
  if (sums.size === 0) return undefined;
  return Object.fromEntries(
    [...sums]
      .sort(([a], [b]) => byCodeUnits(a, b))
      .map(([name, s]) => [name, formatQuantity(s.milli, s.format)] as const),
  );
}

/**
 * Nodes per resource-model grade, as upstream counts them: for each node (in the given order),
 * what is left of its allocatable after the requests of its active pods; the node's grade is the
 * lowest, over the models' resource names, of the highest model whose `min` the leftover reaches.
 * A node that has pods but no pod capacity left stops the count for every later node (upstream
 * breaks out of its loop). One entry per model, in model order.
 */
export function countModelings(
  nodes: readonly NodeView[],
  pods: readonly PodView[],
  models: readonly ResourceModel[],
): { grade: number; count: number }[] {
  const used = new Map<string, Totals>();
  for (const pod of pods) {
    if (pod.nodeName === '' || !isActive(pod)) continue;
    let totals = used.get(pod.nodeName);
    if (totals === undefined) {
      totals = new Map();
      used.set(pod.nodeName, totals);
    }
    addPod(totals, pod);
  }
  const mins = models.map((m) => new Map(m.ranges.map((r) => [r.name, parseQuantity(r.min)?.milli ?? 0n])));
  const names = [...new Set(models.flatMap((m) => m.ranges.map((r) => r.name)))];
  const counts = models.map(() => 0);
  for (const node of nodes) {
    const available = leftover(node, used.get(node.name));
    if (available === undefined) break;
    const index = gradeIndex(available, names, mins);
    if (index >= 0) counts[index] = (counts[index] ?? 0) + 1;
  }
  return models.map((m, i) => ({ grade: m.grade, count: counts[i] ?? 0 }));
}

/** Allocatable minus used; undefined when the node has pods and no pod capacity left. */
function leftover(node: NodeView, used: Totals | undefined): Totals | undefined {
  const available: Totals = new Map();
  for (const [name, q] of Object.entries(node.allocatable)) {
    const milli = parseQuantity(q)?.milli;
    if (milli !== undefined) available.set(name, milli);
  }
  if (used === undefined) return available;
  for (const [name, milli] of used) {
    const have = available.get(name);
    if (have !== undefined) available.set(name, have - milli);
  }
  return (available.get('pods') ?? 0n) <= 0n ? undefined : available;
}

function gradeIndex(
  available: Totals,
  names: readonly string[],
  mins: readonly Map<string, bigint>[],
): number {
  let index = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const have = available.get(name) ?? 0n;
    let best = -1;
    mins.forEach((min, i) => {
      if ((min.get(name) ?? 0n) <= have) best = i;
    });
    index = Math.min(index, best);
  }
  return Number.isFinite(index) ? index : -1;
}
