/**
 * The same failover under both control planes, on this machine:
 *
 *   node controlplane/bench/side-by-side.bench.ts [--bindings=200,1000] [--karmada-eviction-rate=50]
 *       [--only=project|karmada] [--mode=pull|push]
 *
 * For each size: two members, each with a KWOK node and the project's agent (same flags and
 * timings on both sides: status and Lease every second, monitor grace 5 s); `bindings`
 * Deployments of 2 replicas divided member1:1, member2:1 by one PropagationPolicy; once every copy
 * is applied on member1, member1's agent is SIGKILLed. First under the project's control plane
 * (the default ClusterTaintPolicy without its hold, eviction paced at its default 50/s), then under
 * Karmada v1.18.2's own (controller-manager, scheduler, aggregated API server and webhook built
 * from its Go module; the same ClusterTaintPolicy; `--resource-eviction-rate` as given, default 50
 * like the project's; Karmada's own default is 0.5). Prints, from the kill: when member1's Ready
 * turned Unknown, when it got the NoExecute taint, when every binding had left member1, and the
 * ratios Karmada / project.
 *
 * With `--mode=push` both members are Push clusters instead (joined by `controlplane join` on the
 * project's side, by Karmada's `karmadactl join` on Karmada's; status every second, failure and
 * success thresholds 3 s on both sides) and member1's API server is SIGKILLed: the first step is
 * then Ready=False, as each control plane finds member1 unreachable.
 */
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { AppsV1Api, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import {
  clusterKind,
  findCondition,
  findTaint,
  propagationPolicyKind,
  resourceBindingKind,
  type Cluster,
  type PropagationPolicy,
  type ResourceBinding,
} from '@kf/api';
import { ResourceClient, WatchCache } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import {
  DEFAULT_TAINT_POLICY_FILE,
  KARMADA_VERSION,
  KarmadaFederation,
  NOT_READY_NO_EXECUTE,
  dividedByStaticWeights,
  startFailoverFederation,
} from '@kf/testing';
import { inParallel, until } from './support.ts';

const execFileAsync = promisify(execFile);

const { values: args } = parseArgs({
  options: {
    bindings: { type: 'string', default: process.env['KF_BENCH_SIZES'] ?? '200,1000' },
    'karmada-eviction-rate': {
      type: 'string',
      default: process.env['KF_BENCH_KARMADA_EVICTION_RATE'] ?? '50',
    },
    /** `project` or `karmada` to run one side only (no ratios). */
    only: { type: 'string', default: process.env['KF_BENCH_ONLY'] ?? '' },
    /** `pull` (agents; member1's agent killed) or `push` (member1's API server killed). */
    mode: { type: 'string', default: process.env['KF_BENCH_MODE'] ?? 'pull' },
  },
});
const PUSH = args.mode === 'push';
if (!PUSH && args.mode !== 'pull') throw new Error(`--mode must be pull or push, got ${args.mode}`);
const MEMBERS = ['member1', 'member2'];
const SIZES = args.bindings.split(',').map(Number);
const KARMADA_RATE = Number(args['karmada-eviction-rate']);
const NAMESPACE = 'default';
const LABEL = { bench: 'side-by-side' };
/** Room for every replica on one node (2 per binding once all are on member2). */
const NODE_CAPACITY = { cpu: '256', memory: '1Ti', pods: '4000' };

/** What is killed, and what Ready turns to. */
const FAILED = PUSH ? 'API server' : 'agent';
const NOT_READY = PUSH ? 'False' : 'Unknown';

function log(msg: string): void {
  process.stderr.write(`[side-by-side.bench] ${msg}\n`);
}

/** What each side brings: the Karmada API server's admin config, a kill switch, a tear-down. */
interface Side {
  readonly name: string;
  readonly kubeConfig: KubeConfig;
  member(name: string): KubeConfig;
  /** The failure: member1's agent killed (Pull), or its API server (Push). */
  fail(member: string): Promise<void>;
  destroy(): Promise<void>;
}

interface Timeline {
  /** Ready no longer True: Unknown (Pull) or False (Push). */
  readonly unknownMs: number;
  readonly noExecuteMs: number;
  readonly movedMs: number;
}

function deployment(i: number): V1Deployment {
  const name = `app-${String(i).padStart(5, '0')}`;
  const labels = { ...LABEL, app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE, labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            { name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '1m', memory: '1Mi' } } },
          ],
        },
      },
    },
  };
}

/**
 * Waits until member1 runs a copy of each of the `count` Deployments. A binding placed without
 * member1 (not the placement the policy asks for) has its Deployment made again, so that the
 * failover starts from the same placement on both sides instead of waiting forever.
 */
async function everyCopyOnMember1(
  side: Side,
  to: { apps: AppsV1Api; bindings: ResourceClient<ResourceBinding>; count: number },
): Promise<void> {
  const member1Apps = side.member('member1').makeApiClient(AppsV1Api);
  const copies = async (): Promise<number> =>
    (
      await member1Apps.listNamespacedDeployment({
        namespace: NAMESPACE,
        labelSelector: 'bench=side-by-side',
      })
    ).items.length;
  for (let attempt = 1; ; attempt++) {
    const placed = await until(`${to.count} copies on member1`, async () => (await copies()) === to.count, {
      timeoutMs: 60_000,
    })
      .then(() => true)
      .catch(() => false);
    if (placed) return;
    if (attempt === 3) throw new Error(`${side.name}: only ${await copies()}/${to.count} copies on member1`);
    const { items } = await to.bindings.list({ namespace: NAMESPACE });
    const misplaced = items
      .filter((b) => !(b.spec.clusters ?? []).some((c) => c.name === 'member1'))
      .map((b) => b.spec.resource.name);
    log(
      `${side.name}: ${misplaced.length} bindings placed without member1 (${misplaced.join(', ')}); made again`,
    );
    for (const name of misplaced) {
      await to.apps.deleteNamespacedDeployment({ name, namespace: NAMESPACE });
      const i = Number(name.slice('app-'.length));
      await until(
        `${name} gone`,
        async () =>
          !(await to.bindings.list({ namespace: NAMESPACE })).items.some(
            (b) => b.spec.resource.name === name,
          ),
      );
      await to.apps.createNamespacedDeployment({ namespace: NAMESPACE, body: deployment(i) });
    }
  }
}

/**
 * Watches member1's Cluster and the bindings: the first moments member1's Ready is no longer True
 * and it has the NoExecute taint, and (`moved`) the moment no binding has member1 left. Watches, not
 * polls: listing every binding every 100 ms loads the API server under test, and under that load
 * a list takes a second itself, as coarse as what it measures.
 */
async function watchFailover(
  kc: KubeConfig,
  count: number,
): Promise<{
  unknownAt: number | undefined;
  noExecuteAt: number | undefined;
  readonly moved: Promise<number>;
  stop(): void;
}> {
  const quiet = createLogger({ component: 'bench', level: 'silent' });
  const clusters = new WatchCache<Cluster>({ kubeConfig: kc, resource: clusterKind, log: quiet });
  const bindings = new WatchCache<ResourceBinding>({
    kubeConfig: kc,
    resource: resourceBindingKind,
    namespace: NAMESPACE,
    log: quiet,
  });
  const stopping = new AbortController();
  void clusters.run(stopping.signal);
  void bindings.run(stopping.signal);
  await Promise.all([clusters.synced(), bindings.synced()]);
  const onMember1 = (b: ResourceBinding): boolean =>
    (b.spec.clusters ?? []).some((t) => t.name === 'member1');
  let resolveMoved: (at: number) => void = () => undefined;
  const result = {
    unknownAt: undefined as number | undefined,
    noExecuteAt: undefined as number | undefined,
    moved: new Promise<number>((resolve) => {
      resolveMoved = resolve;
    }),
    stop: () => {
      stopping.abort();
    },
  };
  // The bindings of this run, and those of them still on member1, kept from each event rather than
  // by scanning every binding per event: the bench shares the two cores with what it measures.
  const mine = new Set<string>();
  const stillOnMember1 = new Set<string>();
  const track = (type: string, b: ResourceBinding): void => {
    const name = b.metadata.name ?? '';
    if (!name.startsWith('app-')) return;
    if (type === 'DELETED') {
      mine.delete(name);
      stillOnMember1.delete(name);
      return;
    }
    mine.add(name);
    if (onMember1(b)) stillOnMember1.add(name);
    else stillOnMember1.delete(name);
  };
  for (const b of bindings.list()) track('ADDED', b);
  const lookAtMember1 = (): void => {
    const now = performance.now();
    const member1 = clusters.get('member1');
    if (
      result.unknownAt === undefined &&
      findCondition(member1?.status?.conditions, 'Ready')?.status === NOT_READY
    ) {
      result.unknownAt = now;
    }
    if (
      result.noExecuteAt === undefined &&
      findTaint(member1?.spec.taints, NOT_READY_NO_EXECUTE) !== undefined
    ) {
      result.noExecuteAt = now;
    }
  };
  clusters.onEvent(lookAtMember1);
  bindings.onEvent((type, b) => {
    track(type, b);
    if (mine.size === count && stillOnMember1.size === 0) resolveMoved(performance.now());
  });
  return result;
}

/** Propagates `count` Deployments, waits until member1 runs a copy of each, kills its agent, times the rest. */
async function failover(side: Side, count: number): Promise<Timeline> {
  const kc = side.kubeConfig;
  const policies = new ResourceClient<PropagationPolicy>(kc, propagationPolicyKind);
  const bindings = new ResourceClient<ResourceBinding>(kc, resourceBindingKind);
  const clusters = new ResourceClient<Cluster>(kc, clusterKind);
  await policies.create({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'side-by-side', namespace: NAMESPACE },
    spec: {
      resourceSelectors: [
        { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: LABEL } },
      ],
      placement: dividedByStaticWeights({ member1: 1, member2: 1 }),
    },
  });
  // A scheduler that places a binding before a member reported its resources may find no room
  // there (Karmada's put a few bindings member2:2 that way): wait for both members' summaries.
  await until('both members report their resources', async () => {
    const { items } = await clusters.list();
    return (
      items.length === 2 && items.every((c) => c.status?.resourceSummary?.allocatable?.['pods'] !== undefined)
    );
  });
  const apps = kc.makeApiClient(AppsV1Api);
  await inParallel(count, (i) =>
    apps.createNamespacedDeployment({ namespace: NAMESPACE, body: deployment(i) }),
  );
  await everyCopyOnMember1(side, { apps, bindings, count });
  const watched = await watchFailover(kc, count);
  log(`${side.name}: ${count} bindings placed, every copy applied on member1; killing member1's ${FAILED}`);
  const killedAt = performance.now();
  let movedAt: number;
  try {
    await side.fail('member1');
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => {
        reject(new Error(`${side.name}: bindings still on member1 after 15 minutes`));
      }, 15 * 60_000).unref(),
    );
    movedAt = await Promise.race([watched.moved, timeout]);
  } finally {
    watched.stop();
  }
  const { unknownAt, noExecuteAt } = watched;
  return {
    unknownMs: (unknownAt ?? Number.NaN) - killedAt,
    noExecuteMs: (noExecuteAt ?? Number.NaN) - killedAt,
    movedMs: movedAt - killedAt,
  };
}

async function projectSide(): Promise<Side> {
  const fed = await startFailoverFederation({
    members: 2,
    nodes: 1,
    ...(PUSH ? { pushMembers: MEMBERS } : {}),
    nodeCapacity: NODE_CAPACITY,
    timing: { taintHoldSeconds: 0 },
    logLevel: 'warn',
    proxies: false,
  });
  return {
    name: 'karmada-failover',
    kubeConfig: fed.controlPlaneKubeConfig(),
    member: (m) => fed.federation.member(m).kubeConfig(),
    fail: (m) => (PUSH ? fed.killMemberApiServer(m) : fed.killAgent(m)),
    destroy: () => fed.destroy(),
  };
}

async function karmadaSide(): Promise<Side> {
  const fed = await KarmadaFederation.start({
    member: { nodes: 1, nodeCapacity: NODE_CAPACITY },
    ...(PUSH ? { pushMembers: MEMBERS } : {}),
    karmada: { controllerManagerFlags: [`--resource-eviction-rate=${KARMADA_RATE}`] },
  });
  const cp = fed.karmada.cluster;
  await execFileAsync(cp.kubectlPath, cp.kubectlArgs('apply', '-f', DEFAULT_TAINT_POLICY_FILE));
  return {
    name: `Karmada ${KARMADA_VERSION}`,
    kubeConfig: cp.kubeConfig(),
    member: (m) => fed.member(m).kubeConfig(),
    fail: (m) => (PUSH ? fed.member(m).killApiServer() : fed.killAgent(m)),
    destroy: () => fed.destroy(),
  };
}

async function measure(start: () => Promise<Side>, count: number): Promise<Timeline> {
  const side = await start();
  try {
    return await failover(side, count);
  } finally {
    await side.destroy();
  }
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1).padStart(7);
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`.padStart(7);

const NOT_RUN: Timeline = { unknownMs: Number.NaN, noExecuteMs: Number.NaN, movedMs: Number.NaN };

async function measureSide(name: 'project' | 'karmada', count: number): Promise<Timeline> {
  if (args.only !== '' && args.only !== name) return NOT_RUN;
  const t = await measure(name === 'project' ? projectSide : karmadaSide, count);
  log(`${name}, ${count} bindings: moved in ${seconds(t.movedMs).trim()} s`);
  return t;
}

const rows: string[] = [];
for (const count of SIZES) {
  const project = await measureSide('project', count);
  const karmada = await measureSide('karmada', count);
  const row = (label: string, pick: (t: Timeline) => number, first: boolean) =>
    `${(first ? String(count) : '').padStart(8)}  ${label.padEnd(12)} ${seconds(pick(karmada))} ` +
    `${seconds(pick(project))} ${ratio(pick(karmada), pick(project))}`;
  rows.push(
    row(PUSH ? 'to False' : 'to Unknown', (t) => t.unknownMs, true),
    row('to NoExecute', (t) => t.noExecuteMs, false),
    row('all moved', (t) => t.movedMs, false),
  );
}
process.stdout.write(
  `${PUSH ? 'Push members; ' : ''}seconds from member1's ${FAILED} SIGKILLed; Karmada's --resource-eviction-rate=${KARMADA_RATE}, the project's default pacing\n` +
    `bindings  ${'step'.padEnd(12)} ${'Karmada'.padStart(7)} ${'project'.padStart(7)} ${'ratio'.padStart(7)}\n` +
    `${rows.join('\n')}\n`,
);
