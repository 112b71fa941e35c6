/**
 * The cluster health monitor at fleet size, through the control-plane process as deployed (the
 * production bundle with its node flags) against a real Karmada API server:
 *
 *   node controlplane/bench/health.bench.ts [--members=1000] [--minutes=30] [--silenced=20]
 *
 * (KF_HEALTH_MEMBERS, KF_HEALTH_MINUTES, KF_HEALTH_SILENCED set the defaults.) `members` Pull
 * clusters are simulated by this process (status posted once, heartbeat Leases of upstream's
 * 40 s renewed every 10 s, each member on its own schedule as independent agents are; no member
 * API servers), with the control plane at upstream's defaults: monitor period 5 s, grace 40 s.
 * Over `minutes`, `silenced` members stop renewing one after the other, evenly spread; every
 * Cluster's Ready is watched. Printed, one line each:
 *
 *   setup     members registered, the control plane's CPU and RSS once settled
 *   detection for each silenced member, the time from its last accepted renewal to Ready=Unknown
 *             seen here, less the grace, in ms: p50, p99, max, min (goal: at most 1 s)
 *   false     Ready leaving True for any member that kept renewing (goal: none)
 *   cost      the control plane's CPU (share of a core, and per member) and RSS over the run
 *
 * Nothing else runs: no bindings, no policies. What it measures is the cost of watching and
 * judging the fleet's heartbeats, and whether judging stays on time at that load.
 */
import { performance } from 'node:perf_hooks';
import { clusterConditionTypes, clusterKind, findCondition, type Cluster } from '@kf/api';
import { WatchCache } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import { SimulatedMembers, startFailoverFederation } from '@kf/testing';
import { bundleControlPlane } from '../src/build/bundle.ts';
import {
  benchFlags,
  benchOutput,
  controlPlaneTotals,
  inParallel,
  metricSum,
  metricsText,
  mib,
  secs,
  since,
  sleep,
} from './support.ts';

const values = benchFlags('KF_HEALTH', { members: '1000', minutes: '30', silenced: '20' });
const MEMBERS = Number(values.members);
const MINUTES = Number(values.minutes);
const SILENCED = Number(values.silenced);
if (
  !Number.isInteger(MEMBERS) ||
  MEMBERS < 2 ||
  !(MINUTES > 0) ||
  !Number.isInteger(SILENCED) ||
  SILENCED >= MEMBERS
)
  throw new Error('--members must be at least 2, --minutes positive, --silenced fewer than the members');

/** Upstream's defaults: a 40 s Lease renewed every 10 s, a 40 s grace, a 5 s monitor period. */
const RENEW_INTERVAL_MS = 10_000;
const LEASE_SECONDS = 40;
const GRACE_SECONDS = 40;
const MONITOR_PERIOD_SECONDS = 5;
/** Settling time after registration, before the first silence and the cost's first sample. */
const SETTLE_MS = 60_000;

const { log, print } = benchOutput('health.bench');
const memberName = (i: number): string => `member${String(i + 1).padStart(4, '0')}`;

function readyOf(c: Cluster): string {
  return findCondition(c.status, clusterConditionTypes.ready)?.status ?? 'absent';
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function cost(url: string): Promise<{ cpu: number; rss: number }> {
  const text = (await metricsText(url)) ?? '';
  return {
    cpu: (await controlPlaneTotals(url)).cpu,
    rss: metricSum(text, 'process_resident_memory_bytes') ?? 0,
  };
}

const bundle = await bundleControlPlane();
const startedAt = performance.now();
const fed = await startFailoverFederation({
  controlPlaneEntry: bundle.outfile,
  members: 0,
  agents: false,
  timing: {
    monitorPeriodSeconds: MONITOR_PERIOD_SECONDS,
    monitorGraceSeconds: GRACE_SECONDS,
    startupGraceSeconds: 60,
  },
  logLevel: 'warn',
  proxies: false,
});
const members = new SimulatedMembers(fed.controlPlaneKubeConfig(), {
  renewIntervalMs: RENEW_INTERVAL_MS,
  leaseDurationSeconds: LEASE_SECONDS,
  stagger: true,
});
const watchStop = new AbortController();
const silencedAt = new Map<string, number>();
const unknownAt = new Map<string, number>();
const falseTransitions: string[] = [];
try {
  log(`federation up in ${secs(since(startedAt))} s`);
  const watch = new WatchCache<Cluster>({
    kubeConfig: fed.controlPlaneKubeConfig(),
    resource: clusterKind,
    log: createLogger({ component: 'bench', level: 'silent' }),
  });
  watch.onEvent((type, c, old) => {
    const name = c.metadata.name ?? '';
    if (type !== 'MODIFIED' || old === undefined || readyOf(old) !== 'True' || readyOf(c) === 'True') return;
    if (silencedAt.has(name)) {
      if (!unknownAt.has(name)) unknownAt.set(name, performance.now());
    } else falseTransitions.push(`${name}: Ready ${readyOf(c)}`);
  });
  watch.start(watchStop.signal);
  await watch.synced();

  const registerFrom = performance.now();
  await inParallel(MEMBERS, (i) => members.register(memberName(i)));
  const registered = since(registerFrom);
  await sleep(SETTLE_MS);
  const settled = await cost(fed.controlPlaneUrl);
  print(
    `setup members=${MEMBERS} registered_s=${secs(registered)} controlplane_rss_mib=${mib(settled.rss)} ` +
      `controlplane_cpu_s=${secs(settled.cpu)}`,
  );

  // The silenced members, spread over the fleet and over the run (the last one with a grace and
  // a margin to spare before the end).
  const runMs = MINUTES * 60_000;
  const spacingMs = Math.max(1_000, (runMs - (GRACE_SECONDS + 20) * 1_000) / SILENCED);
  const runFrom = performance.now();
  let peakRss = settled.rss;
  const sampler = setInterval(() => {
    void cost(fed.controlPlaneUrl).then((c) => {
      peakRss = Math.max(peakRss, c.rss);
    });
  }, 5_000);
  for (let k = 0; k < SILENCED; k++) {
    const name = memberName(Math.floor((k * MEMBERS) / SILENCED));
    members.silence(name);
    silencedAt.set(name, performance.now());
    log(`silenced ${name} (${k + 1}/${SILENCED})`);
    await sleep(spacingMs);
  }
  const left = runMs - (performance.now() - runFrom);
  if (left > 0) await sleep(left);
  clearInterval(sampler);
  const ran = since(runFrom);
  const end = await cost(fed.controlPlaneUrl);

  const delays: number[] = [];
  const missed: string[] = [];
  for (const name of silencedAt.keys()) {
    const last = members.lastRenewedAt(name);
    const seen = unknownAt.get(name);
    if (last === undefined || seen === undefined) missed.push(name);
    else delays.push((seen - last) / 1000 - GRACE_SECONDS);
  }
  delays.sort((a, b) => a - b);
  const ms = (s: number): string => (s * 1000).toFixed(0);
  print(
    `detection silenced=${SILENCED} detected=${delays.length} p50_ms=${ms(percentile(delays, 50))} ` +
      `p99_ms=${ms(percentile(delays, 99))} max_ms=${ms(delays.at(-1) ?? Number.NaN)} ` +
      `min_ms=${ms(delays[0] ?? Number.NaN)}${missed.length === 0 ? '' : ` missed=${missed.join(',')}`}`,
  );
  print(`false members=${MEMBERS - SILENCED} ready_left_true=${falseTransitions.length}`);
  for (const t of falseTransitions.slice(0, 20)) log(`false: ${t}`);
  const cpuShare = (end.cpu - settled.cpu) / ran;
  print(
    `cost minutes=${(ran / 60).toFixed(1)} controlplane_cpu_percent=${(100 * cpuShare).toFixed(1)} ` +
      `controlplane_rss_mib=${mib(end.rss)} peak_rss_mib=${mib(peakRss)} ` +
      `cpu_ms_per_member_per_min=${((cpuShare * 60_000) / MEMBERS).toFixed(2)}`,
  );
} finally {
  watchStop.abort();
  members.stop();
  await fed.destroy();
}
