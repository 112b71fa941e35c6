/**
 * Everything the project writes must be valid where its users run it: under a real Karmada
 * (v1.18.2, built from Karmada's Go module; see scripts/build-karmada.sh): its CRDs, its aggregated
 * API server (which serves Clusters) and its admission webhook, with strict field validation,
 * which is what `kubectl apply` does by default and what turns a field Karmada does not know into
 * an error rather than a silently dropped value.
 *
 * The objects are captured from a real cluster failover on the project's federation (member1's
 * agent killed: the binding evicted with its placement record, Works, the Clusters the agents
 * registered, the shipped ClusterTaintPolicy, the policy with its fail-back and application
 * failover annotations), plus what application failover writes onto that binding (planned by its
 * own planner), plus the shipped manifests as a user applies them, and each is created with
 * `--dry-run=server --validate=strict` on a Karmada control plane of its own. The shipped
 * interpreter customizations go through Karmada's admission too, which compiles their Lua scripts
 * in Karmada's own Lua VM.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterTaintPolicyKind,
  formatTime,
  type ClusterTaintPolicy,
  type EvictionHistoryEntry,
  type ObjectMeta,
  type ResourceBinding,
  type ResourceInterpreterCustomization,
} from '@kf/api';
import { createResourceInterpreter, parseCustomizations } from '@kf/interpreter';
import { thirdPartyCustomizationsFolder } from '@kf/interpreter/testing';
import { ResourceClient, type ResourceDescriptor } from '@kf/kube';
import {
  KarmadaControlPlane,
  REPO_ROOT,
  startFailoverFederation,
  type FailoverFederation,
  type LocalCluster,
} from '@kf/testing';
import { annotations } from '@kf/api';
import {
  DEFAULT_TOLERATION_SECONDS,
  evictionPatch,
  planApplicationFailover,
} from '../../controlplane/src/controllers/application-failover/failover-plan.ts';
import { formatUnhealthySince } from '../../controlplane/src/controllers/application-failover/unhealthy-record.ts';
import { parseEvictionHistory } from '../../controlplane/src/scheduler/eviction-history-annotation.ts';
import { planBinding } from '../../controlplane/src/workload/resource-detector/binding-plan.ts';
import { interpretedWorkload } from '../../controlplane/src/workload/resource-detector/replicas.ts';
import { binding, demoDeployment, placement, policyFor, propagate, until } from '../e2e/support.ts';

const execFileAsync = promisify(execFile);

let fed: FailoverFederation;
let peer: KarmadaControlPlane;
/** Karmada's API server (with its aggregated API server and webhook behind it). */
let karmada: LocalCluster;
let dir: string;

beforeAll(async () => {
  [fed, peer] = await Promise.all([
    startFailoverFederation({ members: 2, nodes: 1 }),
    // Only what validates: no scheduler or controllers to act on the objects.
    KarmadaControlPlane.start({ components: ['aggregated-apiserver', 'webhook'] }),
  ]);
  karmada = peer.cluster;
  dir = peer.runDir;
});

afterAll(async () => {
  await Promise.all([
    (fed as FailoverFederation | undefined)?.destroy(),
    (peer as KarmadaControlPlane | undefined)?.destroy(),
  ]);
});

/** Metadata the API server fills in: not part of what a writer sends. */
const SERVER_FIELDS = [
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'generation',
  'managedFields',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'ownerReferences',
] as const;

/** The object as its writer sends it, with its kind and apiVersion. */
function asWritten<T extends { metadata: ObjectMeta }>(obj: T, d: ResourceDescriptor): T {
  const server = new Set<string>(SERVER_FIELDS);
  const metadata = Object.fromEntries(Object.entries(obj.metadata).filter(([k]) => !server.has(k)));
  const apiVersion = d.group === '' ? d.version : `${d.group}/${d.version}`;
  return { ...obj, apiVersion, kind: d.kind, metadata };
}

interface Rejection {
  readonly object: string;
  readonly error: string;
}

/** `kubectl create --dry-run=server --validate=strict` of each object on Karmada's CRDs. */
async function rejectedByKarmada(
  objects: readonly { metadata: ObjectMeta; kind?: string }[],
): Promise<Rejection[]> {
  const out = join(dir, 'objects');
  await mkdir(out, { recursive: true });
  const rejected: Rejection[] = [];
  for (const [i, obj] of objects.entries()) {
    const file = join(out, `${String(i)}.json`);
    await writeFile(file, JSON.stringify(obj));
    const name = `${obj.kind ?? '?'} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
    try {
      await execFileAsync(
        karmada.kubectlPath,
        karmada.kubectlArgs('create', '--dry-run=server', '--validate=strict', '-f', file),
      );
    } catch (err: unknown) {
      rejected.push({ object: name, error: String((err as { stderr?: string }).stderr ?? err).trim() });
    }
  }
  return rejected;
}

/** `target` with a JSON merge patch (RFC 7386) applied, as the API server applies it. */
function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out = new Map<string, unknown>(
    typeof target === 'object' && target !== null && !Array.isArray(target) ? Object.entries(target) : [],
  );
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) out.delete(k);
    else out.set(k, applyMergePatch(out.get(k), v));
  }
  return Object.fromEntries(out);
}

/**
 * The binding as application failover leaves it once its workload has stayed Unhealthy on its
 * cluster for `tolerationSeconds`: its planner fed that health and that timer, its patch applied.
 */
function afterApplicationFailover(b: ResourceBinding): ResourceBinding {
  const app = b.spec.failover?.application;
  const cluster = b.spec.clusters?.[0]?.name;
  if (app === undefined || cluster === undefined) throw new Error('no application failover or no placement');
  const nowMs = Date.now();
  const toleratedMs = (app.decisionConditions.tolerationSeconds ?? DEFAULT_TOLERATION_SECONDS) * 1000;
  // The first unhealthy sighting, as the controller records it on the binding.
  const since = formatUnhealthySince({ [cluster]: nowMs - toleratedMs }) ?? '';
  const plan = planApplicationFailover({
    spec: b.spec,
    annotations: { ...b.metadata.annotations, [annotations.applicationFailoverUnhealthySince]: since },
    aggregatedStatus: [{ clusterName: cluster, applied: true, health: 'Unhealthy' }],
    memory: { [cluster]: { healthySeen: true } },
    nowMs,
    clusterScoped: false,
    gates: { gracefulEviction: true, statefulFailoverInjection: false },
  });
  if (plan.change === undefined) throw new Error(`no eviction planned: ${plan.problem ?? 'none due'}`);
  return applyMergePatch(b, evictionPatch(plan.change, plan, b.metadata.resourceVersion)) as ResourceBinding;
}

async function namespaces(names: readonly string[]): Promise<void> {
  for (const ns of names) {
    await execFileAsync(karmada.kubectlPath, karmada.kubectlArgs('create', 'namespace', ns)).catch(
      () => undefined,
    );
  }
}

describe("the project's objects under Karmada v1.18.2's CRDs", () => {
  it('the shipped manifests validate strictly', async () => {
    const manifests = join(REPO_ROOT, 'deploy', 'controlplane');
    const files = (await readdir(manifests)).filter((f) => f.endsWith('.yaml') && f !== 'rbac.yaml');
    const rejected: Rejection[] = [];
    for (const f of files) {
      try {
        await execFileAsync(
          karmada.kubectlPath,
          karmada.kubectlArgs('create', '--dry-run=server', '--validate=strict', '-f', join(manifests, f)),
        );
      } catch (err: unknown) {
        rejected.push({ object: f, error: String((err as { stderr?: string }).stderr ?? err).trim() });
      }
    }
    expect(rejected).toEqual([]);
  });

  it("the shipped interpreter customizations pass Karmada's admission, which compiles their Lua", async () => {
    const folder = join(REPO_ROOT, 'deploy', 'customizations');
    const shipped: ResourceInterpreterCustomization[] = [];
    for (const f of (await readdir(folder)).filter((name) => name.endsWith('.yaml'))) {
      shipped.push(...parseCustomizations(await readFile(join(folder, f), 'utf8')));
    }
    expect(shipped.map((c) => c.spec.target.kind)).toContain('Rollout');
    expect(await rejectedByKarmada(shipped)).toEqual([]);
    // The same customization with one script that does not compile is turned away: the check bites.
    const [first] = shipped;
    if (first === undefined) throw new Error('no customization shipped');
    const broken = {
      ...first,
      spec: {
        ...first.spec,
        customizations: {
          ...first.spec.customizations,
          healthInterpretation: { luaScript: 'function InterpretHealth(observedObj)\n  return (' },
        },
      },
    };
    const [rejection] = await rejectedByKarmada([broken]);
    expect(rejection?.error).toMatch(
      /admission webhook "resourceinterpretercustomization\.karmada\.io" denied/,
    );
  });

  it("a multi-template binding, components from Karmada's FlinkDeployment script, validates strictly", async () => {
    const flink = parseCustomizations(
      await readFile(
        join(
          await thirdPartyCustomizationsFolder(),
          'flink.apache.org/v1beta1/FlinkDeployment/customizations.yaml',
        ),
        'utf8',
      ),
    );
    const template = {
      apiVersion: 'flink.apache.org/v1beta1',
      kind: 'FlinkDeployment',
      metadata: { name: 'etl', namespace: 'default', uid: 'etl-uid', resourceVersion: '7' },
      spec: {
        flinkConfiguration: { 'taskmanager.numberOfTaskSlots': '2' },
        jobManager: { replicas: 1, resource: { cpu: 1, memory: '2048m' } },
        taskManager: { resource: { cpu: 2, memory: '4096m' } },
        job: { parallelism: 4 },
        podTemplate: { spec: { nodeSelector: { pool: 'stream' }, priorityClassName: 'batch' } },
      },
    };
    const interpreter = await createResourceInterpreter(flink);
    const outcome = interpretedWorkload(template, interpreter, true);
    interpreter.close();
    if (outcome.outcome.kind !== 'succeeded') throw new Error(`no components: ${outcome.outcome.kind}`);
    const oneCluster = policyFor('etl', {
      clusterAffinity: { clusterNames: ['member1', 'member2'] },
      spreadConstraints: [{ spreadByField: 'cluster', minGroups: 1, maxGroups: 1 }],
    });
    const plan = planBinding(template, { scope: 'Namespaced', policy: oneCluster }, undefined, {
      newPermanentId: 'etl-id',
      replicas: outcome.outcome.value,
    });
    if (plan.kind !== 'Create') throw new Error(plan.kind);
    expect(plan.binding.spec.components?.map((c) => [c.name, c.replicas])).toEqual([
      ['jobmanager', 1],
      ['taskmanager', 2],
    ]);
    const placed = { ...plan.binding, spec: { ...plan.binding.spec, clusters: [{ name: 'member1' }] } };
    await namespaces(['default']);
    expect(await rejectedByKarmada([asWritten(placed, fed.bindings.resource)])).toEqual([]);
  });

  it('every object a real cluster failover leaves behind validates strictly', async () => {
    const policy = policyFor(
      'web',
      {
        clusterAffinity: { clusterNames: ['member1', 'member2'] },
        replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
      },
      {
        // Application failover with the fields Karmada knows; long enough that it never acts here.
        propagateDeps: true,
        failover: {
          application: { decisionConditions: { tolerationSeconds: 3600 }, purgeMode: 'Gracefully' },
        },
      },
    );
    await propagate(
      fed,
      {
        ...policy,
        metadata: {
          ...policy.metadata,
          annotations: {
            [annotations.failBackAfterSeconds]: '600',
            [annotations.blockPredecessorSeconds]: '900',
          },
        },
      },
      demoDeployment('web', 1),
    );
    await until('web placed', async () => Object.keys((await placement(fed, 'web')) ?? {}).length === 1);
    const first = Object.keys((await placement(fed, 'web')) ?? {})[0] ?? 'member1';
    await fed.killAgent(first);
    await until(
      'web evicted from its cluster, the task still running',
      async () => ((await binding(fed, 'web'))?.spec.gracefulEvictionTasks ?? []).length > 0,
      120_000,
    );

    const kc = fed.controlPlaneKubeConfig();
    const [policies, bindings, works, taintPolicies, clusters] = await Promise.all([
      fed.policies.list(),
      fed.bindings.list(),
      fed.works.list(),
      new ResourceClient<ClusterTaintPolicy>(kc, clusterTaintPolicyKind).list(),
      fed.clusters.list(),
    ]);
    const captured = [
      // Through Karmada's aggregated API server, which has no CRD schema but decodes strictly.
      ...clusters.items.map((o) => asWritten(o, fed.clusters.resource)),
      ...policies.items.map((o) => asWritten(o, fed.policies.resource)),
      ...bindings.items.map((o) => asWritten(o, fed.bindings.resource)),
      ...works.items.map((o) => asWritten(o, fed.works.resource)),
      ...taintPolicies.items.map((o) => asWritten(o, clusterTaintPolicyKind)),
    ];
    // The capture holds what failover writes: a binding mid-eviction with its placement record.
    const web = bindings.items.find((b) => b.metadata.name === 'web-deployment');
    expect(web?.metadata.annotations?.[annotations.placementBeforeFailover]).toBeDefined();
    expect(web?.metadata.annotations?.[annotations.blockPredecessorSeconds]).toBe('900');
    expect(works.items.length).toBeGreaterThan(0);

    // What application failover writes onto that binding once placed again (the capture may
    // precede the new placement): its workload Unhealthy on the new cluster for tolerationSeconds,
    // with a spec.evictionHistory entry as an earlier version left it, which the write moves into
    // the annotation.
    await until('web placed on the other member', async () =>
      Object.keys((await placement(fed, 'web')) ?? {}).some((c) => c !== first),
    );
    const placed = await binding(fed, 'web');
    if (placed === undefined) throw new Error('web binding gone');
    const earlier: EvictionHistoryEntry = {
      clusterName: first,
      creationTimestamp: formatTime(Date.now()),
      reason: 'ApplicationFailure',
    };
    const failedOver = afterApplicationFailover({
      ...placed,
      spec: { ...placed.spec, evictionHistory: [earlier] },
    });
    expect(failedOver.spec).not.toHaveProperty('evictionHistory');
    expect(
      parseEvictionHistory(failedOver.metadata.annotations?.[annotations.evictionHistory])
        .map((e) => e.clusterName)
        .sort(),
    ).toEqual(['member1', 'member2']);
    captured.push(asWritten(failedOver, fed.bindings.resource));
    await namespaces([
      ...new Set(captured.map((o) => o.metadata.namespace).filter((n): n is string => n !== undefined)),
    ]);

    expect(await rejectedByKarmada(captured)).toEqual([]);
  });
});
