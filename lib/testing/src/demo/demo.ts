/**
 * The demo: a local federation with everything of karmada-failover running (member1 and member2
 * joined in Push mode, so that the control plane reports them and applies their Works; member3
 * in Pull mode with its agent; DNS probes on every node; the control plane with --failover; a real
 * Prometheus scraping them all), then two failures played out while a timeline says what happened,
 * in which mode, and how long each step took:
 *
 *  1. cluster failover: `nginx` divided member1:1, member2:2; member1 (Push) is lost, the control
 *     plane finds it unreachable and its replica moves to member2; when member1 returns its old
 *     copy is removed, and once member1 has been steady for the policy's fail-back window the
 *     replica goes back to it;
 *  2. a DNS outage in member3: the probes report it, a Remedy turns on TrafficControl, the
 *     MultiClusterIngress stops routing to member3; DNS back, all of it is undone.
 *
 * At the end every Grafana dashboard query runs against Prometheus over the demo's window.
 */
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  findCondition,
  multiClusterIngressKind,
  remedyKind,
  type Cluster,
  type MultiClusterIngress,
  type Remedy,
} from '@kf/api';
import { ResourceClient } from '@kf/kube';
import { REPO_ROOT } from '../binaries.ts';
import { Timeline, type TimelineEntry } from '../cli/timeline.ts';
import { runDashboardQueries, type QueryOutcome } from '../dashboards.ts';
import { startFailoverFederation, type FailoverFederation } from '../failover-federation.ts';
import { PID_FILE } from '../federation.ts';
import { eventually } from '../readiness.ts';
import { MemberDns } from '../member-dns.ts';
import { LocalPrometheus, type ScrapeTarget } from '../prometheus.ts';
import { demoDeployment } from '../rollout.ts';
import { memberDeployment, placementOf, worksOfBinding } from '../workload-view.ts';
import {
  APP,
  DEMO_FAIL_BACK_SECONDS,
  DEMO_NAMESPACE,
  dividedPolicy,
  dnsRemedy,
  ingress,
  service,
  servicePolicy,
} from './objects.ts';

export const ALERT_RULES = join(REPO_ROOT, 'deploy', 'prometheus', 'karmada-failover.rules.yaml');
const DNS_CONDITION = 'ServiceDomainNameResolutionReady';
const BINDING = `${APP}-deployment`;
const BINDING_KEY = `${DEMO_NAMESPACE}/${BINDING}`;
/** Joined in Push mode: the control plane hosts them (no agent); member3 keeps its agent. */
const PUSH_MEMBERS = ['member1', 'member2'];

function pullMembers(fed: FailoverFederation): string[] {
  return fed.memberNames.filter((m) => !fed.isPush(m));
}
/** Short election periods, so that an agent restarted after a SIGKILL leads again within seconds. */
const AGENT_ELECTION_FLAGS = [
  '--leader-elect=true',
  '--leader-elect-lease-duration=4s',
  '--leader-elect-renew-deadline=3s',
  '--leader-elect-retry-period=1s',
];

export interface DemoOptions {
  /** KWOK nodes per member, each with a DNS probe (default 2). */
  readonly nodes?: number;
  readonly runDir?: string;
  /** Keep everything running after the demo until Ctrl-C. */
  readonly keep: boolean;
  readonly print: (line: string) => void;
}

export interface DemoReport {
  readonly timeline: readonly TimelineEntry[];
  readonly dashboards: readonly QueryOutcome[];
  /** `AlertName (state)` of every alert that was pending or firing during the demo. */
  readonly alerts: readonly string[];
}

/** Runs the demo start to finish (teardown included unless `keep`, then after Ctrl-C). */
export async function runDemo(opts: DemoOptions): Promise<DemoReport> {
  const t = new Timeline(opts.print);
  const undo: (() => Promise<unknown>)[] = [];
  try {
    t.note('== setting up');
    t.mark(
      'starting a control plane and 3 member clusters: member1 and member2 joined in Push mode, an agent in member3, the control plane process',
    );
    const fed = await startFailoverFederation({
      members: 3,
      nodes: opts.nodes ?? 2,
      pushMembers: PUSH_MEMBERS,
      // As the member chart runs them: elected, so a second replica could take over.
      agentFlags: AGENT_ELECTION_FLAGS,
      ...(opts.runDir !== undefined ? { runDir: opts.runDir } : {}),
    });
    undo.unshift(() => fed.destroy());
    t.mark(
      'every Cluster Ready and untainted: member1 and member2 joined by `controlplane join` (Push: the control plane ' +
        `reports them, renews their Lease, applies their Works), member3 registered by its agent (Pull) (run folder ${fed.runDir})`,
    );

    const dns = await MemberDns.start(fed);
    undo.unshift(() => dns.destroy());
    await until('every Cluster reports DNS', async () => {
      for (const name of fed.memberNames) {
        if (conditionStatus(await fed.clusters.get(name), DNS_CONDITION) !== 'True') return false;
      }
      return true;
    });
    t.mark(
      `a DNS server per member and ${dns.probes().length} DNS probes (one per node): ` +
        `${DNS_CONDITION}=True on every Cluster`,
    );

    const prometheus = await startPrometheus(fed, dns);
    undo.unshift(() => prometheus.stop());
    const targets = await prometheus.targets();
    t.mark(
      `Prometheus ${prometheus.url} scraping ${targets.length} targets every ${prometheus.intervalSeconds}s ` +
        `(control plane, ${pullMembers(fed).length} agent, ${dns.probes().length} probes), alert rules loaded`,
    );
    const windowStart = Date.now() / 1000;

    await clusterFailover(fed, t);
    await dnsOutage(fed, dns, t);

    // Two more scrapes, so that the last state is in Prometheus too.
    await sleep(2_500 * prometheus.intervalSeconds);
    const window = { start: windowStart, end: Date.now() / 1000 };
    t.note('');
    t.note('== observability');
    const dashboards = await runDashboardQueries(prometheus, window);
    const empty = dashboards.filter((q) => q.series === 0);
    t.mark(
      `Grafana dashboards: ${dashboards.length - empty.length} of ${dashboards.length} queries return data ` +
        'from Prometheus over the demo',
    );
    for (const q of empty)
      t.note(`    no data: ${q.file} ${q.where}${q.error !== undefined ? ` (${q.error})` : ''}`);
    const alerts = await alertsSeen(prometheus, window);
    t.note(
      `    alerts pending or firing during the demo: ${alerts.length === 0 ? 'none' : alerts.join(', ')}`,
    );

    if (opts.keep) {
      t.note('');
      t.note(`control plane kubeconfig: ${fed.federation.controlPlane.kubeconfigPath}`);
      for (const m of fed.federation.members) t.note(`${m.name} kubeconfig: ${m.kubeconfigPath}`);
      t.note(`Prometheus: ${prometheus.url}   logs: ${fed.runDir}/logs`);
      t.note('running; press Ctrl-C to stop');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    }
    return { timeline: t.entries, dashboards, alerts };
  } finally {
    t.mark('tearing down');
    for (const step of undo) await step().catch(() => undefined);
    t.mark('all processes stopped');
  }
}

/** Cluster failover: Divided member1:1, member2:2; member1 lost, back, and failed back to. */
async function clusterFailover(fed: FailoverFederation, t: Timeline): Promise<void> {
  t.note('');
  t.note('== cluster failover: nginx divided member1:1, member2:2, then member1 is lost');
  await fed.policies.create(dividedPolicy());
  await fed.apps.createNamespacedDeployment({ namespace: DEMO_NAMESPACE, body: demoDeployment(APP, 3) });
  t.mark('applied Deployment nginx (3 replicas) and its PropagationPolicy (Divided, static weights 1:2)');
  await until('nginx scheduled', async () =>
    samePlacement(await placementOf(fed, BINDING_KEY), { member1: 1, member2: 2 }),
  );
  t.mark(`ResourceBinding ${BINDING_KEY} scheduled: member1:1, member2:2`);
  await until(
    'nginx available',
    async () => (await available(fed, 'member1', 1)) && (await available(fed, 'member2', 2)),
  );
  t.mark('nginx Available on the members: member1 1/1, member2 2/2');

  const lostAt = t.mark(
    'member1 lost (Push): its API server and the rest of the cluster stopping; nothing in it reports, the control plane probes it',
  );
  await fed.stopMember('member1');
  await until('member1 not reachable', async () => (await fed.readyStatus('member1')) === 'False');
  const ready = findCondition((await fed.clusters.get('member1')).status?.conditions, 'Ready');
  t.mark(
    `member1 Ready=False (${ready?.reason ?? ''}), ${seconds(t.now() - lostAt)} after it was lost ` +
      '(the control plane could not reach it for its failure threshold; a Push cluster is never Unknown)',
  );
  await until('member1 NoSchedule', async () => hasTaint(await fed.clusters.get('member1'), 'NoSchedule'));
  t.mark(
    `member1 tainted ${taintsOf(await fed.clusters.get('member1'), 'NoSchedule')}: nothing new is scheduled there`,
  );
  await until('member1 NoExecute', async () => hasTaint(await fed.clusters.get('member1'), 'NoExecute'));
  t.mark(
    `member1 tainted ${taintsOf(await fed.clusters.get('member1'), 'NoExecute')} by the default ` +
      `ClusterTaintPolicy after its ${fed.timing.taintHoldSeconds}s hold time: workloads there are evicted`,
  );
  await until('nginx rescheduled', async () =>
    samePlacement(await placementOf(fed, BINDING_KEY), { member2: 3 }),
  );
  t.mark(`${BINDING_KEY} rescheduled: member2:3 (member1 gracefully evicted)`);
  await until('nginx 3/3 on member2', () => available(fed, 'member2', 3));
  t.mark(
    `nginx Available on member2: 3/3 — member1's replica moved to member2, ${seconds(t.now() - lostAt)} after the loss`,
  );
  const works = await worksOfBinding(fed, BINDING);
  if (works['member1'] !== undefined) {
    t.mark(
      `member1's Work stays${works['member1'].deleting ? ' (deleting)' : ''} until the control plane can remove the copy from member1`,
    );
  }

  await fed.startMember('member1');
  const backAt = t.mark('member1 back: its API server running again, the control plane reaches it');
  await until('member1 Ready', async () => (await fed.readyStatus('member1')) === 'True');
  t.mark(`member1 Ready=True, ${seconds(t.now() - backAt)} after it came back`);
  await until(
    'member1 untainted',
    async () => ((await fed.clusters.get('member1')).spec.taints ?? []).length === 0,
  );
  t.mark('member1 taints removed');
  await until(
    "member1's old copy removed",
    async () =>
      (await worksOfBinding(fed, BINDING))['member1'] === undefined &&
      (await memberDeployment(fed, 'member1', DEMO_NAMESPACE, APP)) === undefined,
  );
  t.mark("member1's old copy removed (Work and Deployment gone)");
  const steadyAt = t.now();
  await until('nginx back on member1', async () =>
    samePlacement(await placementOf(fed, BINDING_KEY), { member1: 1, member2: 2 }),
  );
  t.mark(
    `fail-back: ${BINDING_KEY} back to member1:1, member2:2, ${seconds(t.now() - steadyAt)} after member1 ` +
      `was steady again (the policy's fail-back window is ${String(DEMO_FAIL_BACK_SECONDS)}s)`,
  );
  await until(
    'nginx available on both again',
    async () => (await available(fed, 'member1', 1)) && (await available(fed, 'member2', 2)),
  );
  t.mark('nginx Available on the members again: member1 1/1, member2 2/2');
}

/** member3's DNS fails: probes → condition → Remedy → TrafficControl on the ingress, and back. */
async function dnsOutage(fed: FailoverFederation, dns: MemberDns, t: Timeline): Promise<void> {
  const member = 'member3';
  const kc = fed.controlPlaneKubeConfig();
  const remedies = new ResourceClient<Remedy>(kc, remedyKind);
  const ingresses = new ResourceClient<MultiClusterIngress>(kc, multiClusterIngressKind);
  const ingressKey = `${DEMO_NAMESPACE}/${APP}`;
  t.note('');
  t.note(`== DNS outage in ${member}, remedied by TrafficControl on the MultiClusterIngress`);
  await fed.policies.create(servicePolicy(fed.memberNames));
  await kc.makeApiClient(CoreV1Api).createNamespacedService({ namespace: DEMO_NAMESPACE, body: service() });
  await ingresses.create(ingress());
  await remedies.create(dnsRemedy());
  t.mark(
    'applied Service nginx (to every member), MultiClusterIngress nginx, Remedy dns-failure-traffic-control',
  );
  await until('ingress locations', async () => {
    const locations = (await ingresses.get(ingressKey)).status?.serviceLocations ?? [];
    return locations.some((l) => l.name === APP && (l.clusters ?? []).length === fed.memberNames.length);
  });
  t.mark(
    `MultiClusterIngress nginx: Service nginx runs on ${fed.memberNames.join(', ')}; no cluster blocked`,
  );

  await dns.outage(member);
  const outAt = t.mark(`${member}'s DNS server stopped`);
  await until(
    `${member} DNS False`,
    async () => conditionStatus(await fed.clusters.get(member), DNS_CONDITION) === 'False',
  );
  t.mark(
    `${member} ${DNS_CONDITION}=False (${reasonOf(await fed.clusters.get(member), DNS_CONDITION)}), ` +
      `${seconds(t.now() - outAt)} after the outage (probes fail after ${dns.timing.failAfter})`,
  );
  await until(`${member} remedy`, async () =>
    ((await fed.clusters.get(member)).status?.remedyActions ?? []).includes('TrafficControl'),
  );
  t.mark(`${member} remedyActions: [TrafficControl]`);
  await until('traffic blocked', async () =>
    ((await ingresses.get(ingressKey)).status?.trafficBlockClusters ?? []).includes(member),
  );
  t.mark(
    `TrafficControl applied: MultiClusterIngress nginx trafficBlockClusters [${member}], ` +
      `${seconds(t.now() - outAt)} after the outage`,
  );

  await dns.restore(member);
  const backAt = t.mark(`${member}'s DNS server running again`);
  await until(
    `${member} DNS True`,
    async () => conditionStatus(await fed.clusters.get(member), DNS_CONDITION) === 'True',
  );
  t.mark(`${member} ${DNS_CONDITION}=True (probes recover after ${dns.timing.recoverAfter})`);
  await until(
    `${member} remedy cleared`,
    async () => ((await fed.clusters.get(member)).status?.remedyActions ?? []).length === 0,
  );
  t.mark(`${member} remedyActions cleared`);
  await until(
    'traffic unblocked',
    async () => ((await ingresses.get(ingressKey)).status?.trafficBlockClusters ?? []).length === 0,
  );
  t.mark(`TrafficControl cleared: no cluster blocked, ${seconds(t.now() - backAt)} after DNS returned`);
}

async function startPrometheus(fed: FailoverFederation, dns: MemberDns): Promise<LocalPrometheus> {
  const address = (url: string): string => new URL(url).host;
  const targets: ScrapeTarget[] = [
    { job: 'karmada-failover-controlplane', address: address(fed.controlPlaneUrl) },
    ...pullMembers(fed).map((member) => ({
      job: 'karmada-failover-agent',
      address: address(fed.agentUrl(member)),
      labels: { member },
    })),
    ...dns.probes().map(({ member, probe }) => ({
      job: 'karmada-failover-probe',
      address: `127.0.0.1:${probe.port}`,
      labels: { member, node: probe.node },
    })),
  ];
  const prometheus = await LocalPrometheus.start({
    dir: join(fed.runDir, 'prometheus'),
    targets,
    ruleFiles: [ALERT_RULES],
    intervalSeconds: 1,
    pidFile: join(fed.runDir, PID_FILE),
  });
  try {
    await prometheus.waitForTargetsUp();
  } catch (err) {
    await prometheus.stop();
    throw err;
  }
  return prometheus;
}

/** Every alert that was pending or firing at some point of the window, as `Name (state)`. */
async function alertsSeen(
  prometheus: LocalPrometheus,
  window: { start: number; end: number },
): Promise<string[]> {
  const series = await prometheus.queryRange('ALERTS', window.start, window.end, prometheus.intervalSeconds);
  const seen = new Set(
    series.map((s) => `${s.metric['alertname'] ?? '?'} (${s.metric['alertstate'] ?? '?'})`),
  );
  return [...seen].sort();
}

async function available(fed: FailoverFederation, member: string, replicas: number): Promise<boolean> {
  const copy = await memberDeployment(fed, member, DEMO_NAMESPACE, APP);
  return copy !== undefined && copy.replicas === replicas && copy.available === replicas;
}

function samePlacement(
  actual: Readonly<Record<string, number>> | undefined,
  wanted: Readonly<Record<string, number>>,
): boolean {
  if (actual === undefined) return false;
  const keys = Object.keys(actual);
  return keys.length === Object.keys(wanted).length && keys.every((k) => actual[k] === wanted[k]);
}

function conditionStatus(cluster: Cluster, type: string): string | undefined {
  return findCondition(cluster.status?.conditions, type)?.status;
}

function reasonOf(cluster: Cluster, type: string): string {
  return findCondition(cluster.status?.conditions, type)?.reason ?? 'no reason';
}

function hasTaint(cluster: Cluster, effect: string): boolean {
  return (cluster.spec.taints ?? []).some((taint) => taint.effect === effect);
}

function taintsOf(cluster: Cluster, effect: string): string {
  return (cluster.spec.taints ?? [])
    .filter((taint) => taint.effect === effect)
    .map((taint) => `${taint.key}:${taint.effect}`)
    .join(', ');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A demo step waits up to three minutes: a loaded machine is slower than the tests' polls. */
function until(what: string, probe: () => Promise<boolean>): Promise<number> {
  return eventually(`demo step "${what}"`, probe, 180_000);
}
