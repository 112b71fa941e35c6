/**
 * Builders and probes shared by the end-to-end scenarios: the objects users create on the Karmada
 * control plane, and what the tests read back from it and from the members.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CoreV1Api, type V1Deployment, type V1Taint } from '@kubernetes/client-node';
import {
  annotations,
  clusterTaintKeys,
  findTaint,
  type Placement,
  type TaintIdentity,
  type PropagationPolicy,
  type ResourceBinding,
  type Taint,
  type Toleration,
} from '@kf/api';
import {
  CORE_EVENT_RESOURCE,
  ResourceClient,
  retryOnConflict,
  type CoreEvent,
  type KubeObject,
  type ResourceDescriptor,
} from '@kf/kube';
import {
  AGENT_MAIN,
  demoDeployment,
  eventually,
  memberDeployment,
  placementOf,
  worksOfBinding,
  type FailoverFederation,
  type MemberCopy,
  type WorkState,
} from '@kf/testing';

const execFileAsync = promisify(execFile);

export const NAMESPACE = 'default';

/** member1 first, member2 as the backup: every replica on the first that fits. */
export const PRIMARY_THEN_BACKUP: Placement = {
  clusterAffinities: [
    { affinityName: 'primary', clusterNames: ['member1'] },
    { affinityName: 'backup', clusterNames: ['member2'] },
  ],
  replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
};

export const TAINTS: Readonly<Record<'unreachable' | 'notReadySchedule' | 'notReadyExecute', TaintIdentity>> =
  {
    unreachable: { key: 'cluster.karmada.io/unreachable', effect: 'NoSchedule' },
    notReadySchedule: { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' },
    notReadyExecute: { key: 'cluster.karmada.io/not-ready', effect: 'NoExecute' },
  };

const DEPLOYMENT_KIND = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;

/** A PropagationPolicy selecting one object, by default a Deployment. */
export function policyFor(
  name: string,
  placement: Placement,
  extra: Partial<PropagationPolicy['spec']> = {},
  target: { readonly apiVersion: string; readonly kind: string } = DEPLOYMENT_KIND,
): PropagationPolicy {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: `${name}-propagation`, namespace: NAMESPACE },
    spec: {
      resourceSelectors: [{ apiVersion: target.apiVersion, kind: target.kind, name }],
      placement,
      ...extra,
    },
  };
}

/** Creates the policy first (so the detector matches at once), then the Deployment template. */
export async function propagate(
  fed: FailoverFederation,
  policy: PropagationPolicy,
  deployment: V1Deployment,
): Promise<void> {
  await fed.policies.create(policy);
  await fed.apps.createNamespacedDeployment({ namespace: NAMESPACE, body: deployment });
}

export { demoDeployment };

export function bindingName(deployment: string): string {
  return `${NAMESPACE}/${deployment}-deployment`;
}

export async function binding(
  fed: FailoverFederation,
  deployment: string,
): Promise<ResourceBinding | undefined> {
  return fed.bindings.find(bindingName(deployment));
}

/** The binding's placement as `{ cluster: replicas }` (undefined before it exists). */
export function placement(
  fed: FailoverFederation,
  deployment: string,
): Promise<Record<string, number> | undefined> {
  return placementOf(fed, bindingName(deployment));
}

/** Member → the Work of this Deployment in its execution namespace (with deletion state). */
export function worksOf(fed: FailoverFederation, deployment: string): Promise<Record<string, WorkState>> {
  return worksOfBinding(fed, `${deployment}-deployment`);
}

/** The Deployment on a member (undefined when absent). */
export function memberCopy(
  fed: FailoverFederation,
  member: string,
  name: string,
): Promise<MemberCopy | undefined> {
  return memberDeployment(fed, member, NAMESPACE, name);
}

/** True when the member runs the Deployment with `replicas` replicas, all available. */
export async function runsAvailable(
  fed: FailoverFederation,
  member: string,
  name: string,
  replicas: number,
): Promise<boolean> {
  const copy = await memberCopy(fed, member, name);
  return copy !== undefined && copy.replicas === replicas && copy.available === replicas;
}

export async function clusterTaint(
  fed: FailoverFederation,
  cluster: string,
  wanted: TaintIdentity,
): Promise<Taint | undefined> {
  const c = await fed.clusters.get(cluster);
  return findTaint(c.spec.taints, wanted);
}

/** Polls until `probe` holds (errors count as not yet); returns the time it first held (ms epoch). */
export function until(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs = 90_000,
  intervalMs = 200,
): Promise<number> {
  return eventually(what, probe, timeoutMs, intervalMs);
}

/** Checks `condition` every 250 ms for `ms` and fails the first time it does not hold. */
export async function holdsFor(ms: number, what: string, condition: () => Promise<boolean>): Promise<void> {
  const endAtMs = Date.now() + ms;
  while (Date.now() < endAtMs) {
    if (!(await condition())) throw new Error(`${what} stopped holding`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Seconds-precision RFC 3339 time → ms epoch. */
export function timeMs(t: string | undefined): number {
  if (t === undefined) throw new Error('no time');
  return Date.parse(t);
}

/**
 * Fails if a check that finished before `deadlineMs` found `condition` false: proof that it held
 * at least until then (a check finishing later may see the change that happens at the deadline).
 * Returns when the deadline has passed, with the start time of the last check that found it
 * holding, so that callers can tell how close to the deadline it was last seen.
 */
export async function holdsUntil(
  deadlineMs: number,
  what: string,
  condition: () => Promise<boolean>,
  intervalMs = 200,
): Promise<number> {
  let lastHeldMs = Number.NEGATIVE_INFINITY;
  for (;;) {
    const startMs = Date.now();
    if (startMs >= deadlineMs) return lastHeldMs;
    const held = await condition();
    const endMs = Date.now();
    if (held) lastHeldMs = startMs;
    else if (endMs < deadlineMs) {
      throw new Error(`${what} stopped holding ${deadlineMs - endMs} ms before the deadline`);
    } else return lastHeldMs;
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(intervalMs, deadlineMs - Date.now()))));
  }
}

/** Core Events on the control plane about the object `name` with `reason`, oldest first. */
export async function eventsAbout(
  fed: FailoverFederation,
  name: string,
  reason: string,
): Promise<CoreEvent[]> {
  const events = new ResourceClient<CoreEvent>(fed.controlPlaneKubeConfig(), CORE_EVENT_RESOURCE);
  const { items } = await events.list();
  return items.filter((e) => e.involvedObject.name === name && e.reason === reason);
}

/** The values of every series of `name` that `url`'s /metrics serves, labelled or not. */
async function samplesOf(url: string, name: string): Promise<number[]> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
    .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
}

/** The first sample of `name` on the control plane's /metrics, labelled or not (undefined when absent). */
export async function controlPlaneMetric(fed: FailoverFederation, name: string): Promise<number | undefined> {
  return (await samplesOf(fed.controlPlaneUrl, name))[0];
}

/** The sum of every series of `name` on a member agent's /metrics (0 when absent). */
export async function agentMetric(fed: FailoverFederation, member: string, name: string): Promise<number> {
  return (await samplesOf(fed.agentUrl(member), name)).reduce((sum, v) => sum + v, 0);
}

/**
 * Runs the agent's operator CLI (`condition set`, `condition clear`, `status`) against the control
 * plane as its admin, as an operator would; returns what it printed.
 */
export async function agentCli(fed: FailoverFederation, args: readonly string[]): Promise<string> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [AGENT_MAIN, ...args, `--karmada-kubeconfig=${fed.federation.controlPlane.kubeconfigPath}`],
    { env: { ...process.env, KUBECONFIG: '' }, timeout: 60_000 },
  );
  return stdout;
}

/** Health the member's agent reports for the Deployment in its Work (undefined before any). */
export async function workHealth(
  fed: FailoverFederation,
  deployment: string,
  member: string,
): Promise<string | undefined> {
  const { items } = await fed.works.list({ namespace: `karmada-es-${member}` });
  const work = items.find(
    (w) => w.metadata.annotations?.['resourcebinding.karmada.io/name'] === `${deployment}-deployment`,
  );
  return work?.status?.manifestStatuses?.[0]?.health;
}

/** Clusters application failover has recorded the workload as seen Healthy on. */
export async function seenHealthyOn(fed: FailoverFederation, deployment: string): Promise<string[]> {
  const b = await binding(fed, deployment);
  const recorded = b?.metadata.annotations?.[annotations.applicationFailoverHealthyClusters] ?? '';
  return recorded.split(',').filter((c) => c !== '');
}

/**
 * Adds `taint` to every node of a member (no-op where it is there already). With `NoExecute`,
 * the member's kube-controller-manager evicts every pod that does not tolerate it and its
 * kube-scheduler places none there, as when a real node goes bad.
 */
export async function taintMemberNodes(
  fed: FailoverFederation,
  member: string,
  taint: V1Taint,
): Promise<void> {
  await editMemberNodes(fed, member, (taints) =>
    taints.some((t) => t.key === taint.key && t.effect === taint.effect) ? undefined : [...taints, taint],
  );
}

/** Removes every taint with `key` from the member's nodes. */
export async function untaintMemberNodes(
  fed: FailoverFederation,
  member: string,
  key: string,
): Promise<void> {
  await editMemberNodes(fed, member, (taints) =>
    taints.some((t) => t.key === key) ? taints.filter((t) => t.key !== key) : undefined,
  );
}

/** Read-modify-write of each node's taints (KWOK writes nodes too: conflicts are retried). */
async function editMemberNodes(
  fed: FailoverFederation,
  member: string,
  edit: (taints: readonly V1Taint[]) => V1Taint[] | undefined,
): Promise<void> {
  const core = fed.member(member).kubeConfig().makeApiClient(CoreV1Api);
  const { items } = await core.listNode();
  for (const name of items.map((n) => n.metadata?.name ?? '')) {
    await retryOnConflict(
      async () => {
        const node = await core.readNode({ name });
        const taints = edit(node.spec?.taints ?? []);
        if (taints === undefined) return;
        await core.replaceNode({ name, body: { ...node, spec: { ...node.spec, taints } } });
      },
      { attempts: 10 },
    );
  }
}

/** When a probe started to hold, bracketed by two of its runs. */
export interface Change {
  /** Start of the last run that did not hold: the change happened after it. */
  readonly notYetAtMs: number;
  /** End of the first run that held: the change happened before it. */
  readonly heldAtMs: number;
}

/**
 * Like {@link until}, for a condition that must not hold yet when called (that first run fails
 * otherwise): brackets when it started to hold, so a lower bound taken from `notYetAtMs` is
 * never later than the real change. `knownNotYetAtMs`, when given, is a moment the caller saw it
 * not hold (just before causing the change, which may then show at the very first run).
 */
export async function untilChange(
  what: string,
  probe: () => Promise<boolean>,
  opts: { readonly timeoutMs?: number; readonly intervalMs?: number; readonly knownNotYetAtMs?: number } = {},
): Promise<Change> {
  const { timeoutMs = 90_000, intervalMs = 100 } = opts;
  const deadline = Date.now() + timeoutMs;
  let notYetAtMs: number | undefined = opts.knownNotYetAtMs;
  let last: unknown;
  for (;;) {
    const startedAtMs = Date.now();
    let answer: boolean | undefined;
    try {
      answer = await probe();
    } catch (err: unknown) {
      last = err;
    }
    if (answer === true) {
      if (notYetAtMs === undefined) throw new Error(`${what}: already true at the start`);
      return { notYetAtMs, heldAtMs: Date.now() };
    }
    // A run that failed says nothing about the condition: only a "no" brackets the change.
    if (answer === false) notYetAtMs = startedAtMs;
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? ` (last error: ${last.message})` : '';
      throw new Error(`${what}: not true after ${timeoutMs} ms${detail}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Tolerations of the not-ready and unreachable NoExecute taints for `seconds`. */
export function toleratingUnreadyFor(seconds: number): Toleration[] {
  return [clusterTaintKeys.notReady, clusterTaintKeys.unreachable].map((key) => ({
    key,
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds: seconds,
  }));
}

const CONFIG_MAPS: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  namespaced: true,
  kind: 'ConfigMap',
};

/** Creates the ConfigMap `name` on the control plane. */
export async function createConfigMap(fed: FailoverFederation, name: string): Promise<void> {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NAMESPACE },
    data: { 'app.conf': 'mode=serve' },
  };
  await new ResourceClient<KubeObject>(fed.controlPlaneKubeConfig(), CONFIG_MAPS).create(configMap);
}

/** Whether the ConfigMap `name` is on `member`. */
export async function memberHasConfigMap(
  fed: FailoverFederation,
  member: string,
  name: string,
): Promise<boolean> {
  const copies = new ResourceClient<KubeObject>(fed.member(member).kubeConfig(), CONFIG_MAPS);
  return (await copies.find(`${NAMESPACE}/${name}`)) !== undefined;
}

/** `deployment` with its pods mounting the ConfigMap `configMap` (a dependency `propagateDeps` carries along). */
export function mountingConfigMap(deployment: V1Deployment, configMap: string): V1Deployment {
  const template = deployment.spec?.template;
  const pod = template?.spec;
  if (deployment.spec === undefined || template === undefined || pod === undefined) return deployment;
  return {
    ...deployment,
    spec: {
      ...deployment.spec,
      template: {
        ...template,
        spec: {
          ...pod,
          containers: pod.containers.map((c) => ({
            ...c,
            volumeMounts: [...(c.volumeMounts ?? []), { name: 'config', mountPath: '/etc/app' }],
          })),
          volumes: [...(pod.volumes ?? []), { name: 'config', configMap: { name: configMap } }],
        },
      },
    },
  };
}

/**
 * After `member` returned: Ready=True again, its old Work and its copy of `app` removed, its
 * taints gone, and for 5 s `app` stays where it moved (`stays`: cluster → replicas, all available).
 */
export async function returnedWithoutFailBack(
  fed: FailoverFederation,
  member: string,
  app: string,
  stays: Readonly<Record<string, number>>,
): Promise<void> {
  await until(`${member} Ready=True`, async () => (await fed.readyStatus(member)) === 'True', 90_000);
  await until(`${member} Work gone`, async () => (await worksOf(fed, app))[member] === undefined, 60_000);
  await until(
    `${app} gone from ${member}`,
    async () => (await memberCopy(fed, member, app)) === undefined,
    30_000,
  );
  await until(
    `${member} untainted`,
    async () => ((await fed.clusters.get(member)).spec.taints ?? []).length === 0,
    30_000,
  );
  await holdsFor(5000, 'no fail-back', async () => {
    const p = await placement(fed, app);
    if (JSON.stringify(p) !== JSON.stringify(stays)) return false;
    for (const [cluster, replicas] of Object.entries(stays)) {
      if (!(await runsAvailable(fed, cluster, app, replicas))) return false;
    }
    return true;
  });
}
