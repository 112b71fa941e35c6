/**
 * Push members beside Pull members, the same fleet and load, through the control-plane process:
 *
 *   node controlplane/bench/push.bench.ts [--bindings=2000] [--members=10] [--mode=both|push|pull]
 *
 * (KF_PUSH_BINDINGS, KF_PUSH_MEMBERS and KF_PUSH_MODE set the defaults.) `members` real member
 * clusters (kube-apiserver, etcd, kube-controller-manager, one KWOK node each), every one joined
 * in Push mode (`controlplane join`: the control plane reports them and applies their Works) or
 * every one with its agent (Pull), status every second, thresholds 3 s, monitor grace 5 s, the
 * default ClusterTaintPolicy without its hold. Deployment i, of 2 replicas, is divided 1:1 over
 * member i mod `members` and the member after it. Per mode, one line each:
 *
 *   applied   seconds until every Work is Applied on its member (2 per binding)
 *   steady    the control plane's CPU (% of one core over 30 s once its queues are idle) and RSS;
 *             for Push, the difference from the Pull run per Push member
 *   status    mean seconds of one status sync (probe, collection, write): the control plane's
 *             for Push members, the agents' for Pull ones
 *   lost      member1 fails (Push: its API server SIGKILLed; Pull: its agent): seconds until it
 *             is not ready, and until every binding that was on it has left it
 */
import { performance } from 'node:perf_hooks';
import type { V1Deployment } from '@kubernetes/client-node';
import { findCondition, type PropagationPolicy, type Work } from '@kf/api';
import type { ResourceClient } from '@kf/kube';
import {
  demoDeployment,
  dividedByStaticWeights,
  startFailoverFederation,
  type FailoverFederation,
} from '@kf/testing';
import {
  benchFlags,
  benchOutput,
  forEachListed,
  inParallel,
  metricSum,
  metricsText,
  mib,
  secs,
  since,
  sleep,
  waitForIdle,
} from './support.ts';

const args = benchFlags('KF_PUSH', { bindings: '2000', members: '10', mode: 'both' });
const BINDINGS = Number(args.bindings);
const MEMBERS = Number(args.members);
type Mode = 'pull' | 'push';
const isMode = (m: string): m is Mode => m === 'pull' || m === 'push';
const MODES: readonly Mode[] = args.mode === 'both' ? ['pull', 'push'] : [args.mode].filter(isMode);
if (!Number.isInteger(BINDINGS) || BINDINGS < 1 || !Number.isInteger(MEMBERS) || MEMBERS < 2) {
  throw new Error('--bindings must be at least 1 and --members at least 2');
}
if (MODES.length === 0) throw new Error('--mode must be both, push or pull');

const NAMESPACE = 'default';
const PAIR_LABEL = 'push-bench-pair';
const NODE_CAPACITY = { cpu: '512', memory: '2Ti', pods: '8000' };
const { log, print, untilPhase } = benchOutput('push.bench');

const memberName = (i: number): string => `member${String(i + 1)}`;
const appName = (i: number): string => `app-${String(i).padStart(5, '0')}`;

function deployment(i: number): V1Deployment {
  const d = demoDeployment(appName(i), 2);
  d.metadata = { ...d.metadata, labels: { ...d.metadata?.labels, [PAIR_LABEL]: String(i % MEMBERS) } };
  return d;
}

function pairPolicy(p: number): PropagationPolicy {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: `pair-${String(p)}`, namespace: NAMESPACE },
    spec: {
      resourceSelectors: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          labelSelector: { matchLabels: { [PAIR_LABEL]: String(p) } },
        },
      ],
      placement: dividedByStaticWeights({ [memberName(p)]: 1, [memberName((p + 1) % MEMBERS)]: 1 }),
    },
  };
}

interface Run {
  readonly appliedS: number;
  readonly cpuPercent: number;
  readonly rssBytes: number;
  readonly statusSyncS: number;
  readonly notReadyS: number;
  readonly movedS: number;
  readonly moved: number;
}

async function appliedWorks(works: ResourceClient<Work>): Promise<number> {
  let n = 0;
  await forEachListed(works, undefined, (w) => {
    if (findCondition(w.status?.conditions, 'Applied')?.status === 'True') n++;
  });
  return n;
}

/** Mean seconds of one status sync: the control plane's histogram (Push), or every agent's (Pull). */
async function meanStatusSync(fed: FailoverFederation, push: boolean): Promise<number> {
  const urls = push ? [fed.controlPlaneUrl] : fed.memberNames.map((m) => fed.agentUrl(m));
  let sum = 0;
  let count = 0;
  for (const url of urls) {
    const text = (await metricsText(url)) ?? '';
    sum += metricSum(text, 'cluster_sync_status_duration_seconds_sum') ?? 0;
    count += metricSum(text, 'cluster_sync_status_duration_seconds_count') ?? 0;
  }
  return count === 0 ? Number.NaN : sum / count;
}

async function steadyUsage(url: string): Promise<{ cpuPercent: number; rssBytes: number }> {
  const cpu = async () => metricSum((await metricsText(url)) ?? '', 'process_cpu_seconds_total') ?? 0;
  const before = await cpu();
  const at = performance.now();
  await sleep(30_000);
  const cpuPercent = (((await cpu()) - before) / since(at)) * 100;
  const rssBytes = metricSum((await metricsText(url)) ?? '', 'process_resident_memory_bytes') ?? 0;
  return { cpuPercent, rssBytes };
}

async function bindingsOn(fed: FailoverFederation, member: string): Promise<number> {
  let n = 0;
  await forEachListed(fed.bindings, NAMESPACE, (b) => {
    if ((b.spec.clusters ?? []).some((c) => c.name === member)) n++;
  });
  return n;
}

async function measure(mode: Mode): Promise<Run> {
  const push = mode === 'push';
  log(`${mode}: starting ${String(MEMBERS)} members`);
  const fed = await startFailoverFederation({
    members: MEMBERS,
    nodes: 1,
    nodeCapacity: NODE_CAPACITY,
    ...(push ? { pushMembers: Array.from({ length: MEMBERS }, (_, i) => memberName(i)) } : {}),
    timing: { taintHoldSeconds: 0 },
    logLevel: 'warn',
    proxies: false,
    controlPlaneFlags: ['--fleet-guard-min-clusters=1000'],
  });
  try {
    const works = fed.works;
    for (let p = 0; p < MEMBERS; p++) await fed.policies.create(pairPolicy(p));
    const start = performance.now();
    await inParallel(BINDINGS, (i) =>
      fed.apps.createNamespacedDeployment({ namespace: NAMESPACE, body: deployment(i) }),
    );
    const appliedS = await untilPhase('Works applied', () => appliedWorks(works), 2 * BINDINGS, {
      from: start,
      pauseMs: 2_000,
    });
    await waitForIdle(fed.controlPlaneUrl, performance.now());
    const usage = await steadyUsage(fed.controlPlaneUrl);
    const statusSyncS = await meanStatusSync(fed, push);
    const lost = memberName(0);
    const onLost = await bindingsOn(fed, lost);
    const failedAt = performance.now();
    if (push) await fed.killMemberApiServer(lost);
    else await fed.killAgent(lost);
    let notReadyAt: number | undefined;
    await untilPhase(
      `bindings off ${lost}`,
      async () => {
        if (notReadyAt === undefined && (await fed.readyStatus(lost)) !== 'True')
          notReadyAt = performance.now();
        return onLost - (await bindingsOn(fed, lost));
      },
      onLost,
      { from: failedAt, pauseMs: 250 },
    );
    return {
      appliedS,
      ...usage,
      statusSyncS,
      notReadyS: ((notReadyAt ?? Number.NaN) - failedAt) / 1000,
      movedS: since(failedAt),
      moved: onLost,
    };
  } finally {
    await fed.destroy();
  }
}

const runs = new Map<string, Run>();
for (const mode of MODES) {
  const r = await measure(mode);
  runs.set(mode, r);
  print(
    `${mode.padEnd(4)} ${String(MEMBERS)} members, ${String(BINDINGS)} bindings: ` +
      `applied ${secs(r.appliedS)} s (${((2 * BINDINGS) / r.appliedS).toFixed(0)} Works/s); ` +
      `steady control plane ${r.cpuPercent.toFixed(1)} % CPU, ${mib(r.rssBytes)} MiB RSS; ` +
      `status sync ${(r.statusSyncS * 1000).toFixed(0)} ms; ` +
      `lost member: not ready +${secs(r.notReadyS)} s, ${String(r.moved)} bindings moved +${secs(r.movedS)} s`,
  );
}
const pull = runs.get('pull');
const pushed = runs.get('push');
if (pull !== undefined && pushed !== undefined) {
  print(
    `per Push member, over Pull: control plane +${((pushed.cpuPercent - pull.cpuPercent) / MEMBERS).toFixed(2)} % CPU, ` +
      `+${mib((pushed.rssBytes - pull.rssBytes) / MEMBERS)} MiB RSS; lost member's bindings moved in ` +
      `${(pushed.movedS / pull.movedS).toFixed(2)}× the Pull time`,
  );
}
