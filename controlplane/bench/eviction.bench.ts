/**
 * How fast taint-based eviction empties a failed cluster: 1,000 ResourceBindings placed on two
 * clusters, one of which gets a NoExecute taint nothing tolerates, against a real Karmada API
 * server (kube-apiserver + etcd from @kf/testing) with the real control plane process
 * (`node controlplane/src/main.ts run --failover`, the cluster-facing controllers, default pacing
 * unless flags say otherwise).
 *
 *   node controlplane/bench/eviction.bench.ts [bindings] [-- extra control plane flags…]
 *   node controlplane/bench/eviction.bench.ts 1000 -- --resource-eviction-rate=20
 *
 * Prints the time from the taint to the last binding leaving the cluster, the rate, and what
 * upstream's default pacing (0.5 evictions/s per worker) would take for the same bindings, and
 * the control plane's CPU time and taint-manager reconciles over the run.
 */
import { performance } from 'node:perf_hooks';
import { resourceBindingKind, type ResourceBinding } from '@kf/api';
import { ResourceClient, WatchCache } from '@kf/kube';
import { createLogger } from '@kf/runtime';
import {
  ControlPlaneProcess,
  FakeAgents,
  forEachLimited,
  placedBinding,
  startPlane,
  taintNoExecute,
} from '../test/harness.ts';

const dashDash = process.argv.indexOf('--');
const args = dashDash < 0 ? process.argv.slice(2) : process.argv.slice(2, dashDash);
const extraFlags = dashDash < 0 ? [] : process.argv.slice(dashDash + 1);
const count = Number(args[0] ?? 1_000);
const FAILED = 'failed';
const HEALTHY = 'healthy';
/** Upstream: one token per worker every 1/0.5 s after each eviction, three workers. */
const UPSTREAM_RATE_PER_WORKER = 0.5;
const UPSTREAM_WORKERS = 3;

const isOn = (b: ResourceBinding, cluster: string): boolean =>
  b.spec.clusters?.some((c) => c.name === cluster) === true;

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const fmt = (s: number): string => (s < 120 ? `${s.toFixed(1)} s` : `${(s / 60).toFixed(1)} min`);

const plane = await startPlane();
const agents = new FakeAgents(plane);
const watchStop = new AbortController();
let cp: ControlPlaneProcess | undefined;
try {
  for (const name of [FAILED, HEALTHY]) await agents.register(name);
  const kc = plane.cluster.kubeConfig();
  const bindings = new ResourceClient<ResourceBinding>(kc, resourceBindingKind);
  const names = Array.from({ length: count }, (_, i) => `app-${String(i).padStart(5, '0')}`);
  await forEachLimited(names, 20, (name) => bindings.create(placedBinding(name, [FAILED, HEALTHY])));

  const watch = new WatchCache<ResourceBinding>({
    kubeConfig: kc,
    resource: resourceBindingKind,
    log: createLogger({ component: 'bench', level: 'silent' }),
  });
  const leftAtMs: number[] = [];
  watch.onEvent((type, obj, old) => {
    if (type === 'MODIFIED' && old !== undefined && isOn(old, FAILED) && !isOn(obj, FAILED)) {
      leftAtMs.push(performance.now());
    }
  });
  watch.start(watchStop.signal);
  await watch.synced();

  // Production defaults except the test's short health periods and no leader election.
  cp = await ControlPlaneProcess.start(plane.controlPlaneKubeconfig, [
    '--controllers=*,-resource-detector,-scheduler,-dependencies-distributor,-binding,-binding-status',
    '--log-level=warn',
    ...extraFlags,
  ]);
  await cp.ready();

  const sample = async (): Promise<{ cpuS: number; looks: number }> => {
    const looks = await Promise.all(
      ['success', 'recheck', 'error'].map(
        async (result) =>
          (await cp?.metric('karmada_failover_reconcile_total', { controller: 'taint-manager', result })) ??
          0,
      ),
    );
    return {
      cpuS: (await cp?.metric('process_cpu_seconds_total')) ?? 0,
      looks: looks.reduce((a, b) => a + b, 0),
    };
  };
  const before = await sample();
  const taintAtMs = performance.now();
  await taintNoExecute(plane, FAILED, 'example.com/bench');
  const deadline = taintAtMs + 60 * 60_000;
  while (leftAtMs.length < count && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (leftAtMs.length < count) throw new Error(`only ${leftAtMs.length} of ${count} bindings left`);
  const after = await sample();
  const totalS = ((leftAtMs.at(-1) ?? taintAtMs) - taintAtMs) / 1000;
  const at = (share: number): string =>
    fmt(((leftAtMs[Math.ceil(share * count) - 1] ?? taintAtMs) - taintAtMs) / 1000);
  const upstreamOneS = count / UPSTREAM_RATE_PER_WORKER;
  const upstreamAllS = count / (UPSTREAM_RATE_PER_WORKER * UPSTREAM_WORKERS);
  const flags = extraFlags.length === 0 ? 'default pacing (rate 50/s, burst 100)' : extraFlags.join(' ');
  print(`eviction: ${count} bindings on a cluster tainted NoExecute, ${flags}`);
  print(`  first left after      ${at(1 / count)}`);
  print(`  half left after      ${at(0.5)}`);
  print(`  all left after       ${fmt(totalS)}  (${(count / totalS).toFixed(1)} bindings/s)`);
  print(
    `  control plane CPU    ${(after.cpuS - before.cpuS).toFixed(1)} s; taint-manager reconciles ` +
      `${after.looks - before.looks} (${((after.looks - before.looks) / count).toFixed(1)} per binding)`,
  );
  print(
    `  upstream 0.5/s pacing: ${fmt(upstreamOneS)} with one worker, ${fmt(upstreamAllS)} with three ` +
      `(${(upstreamAllS / totalS).toFixed(0)}x slower)`,
  );
} finally {
  watchStop.abort();
  await cp?.stop();
  agents.stop();
  await plane.cluster.destroy();
}
