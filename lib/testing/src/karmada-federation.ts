/**
 * A real Karmada control plane with members whose agents are the project's (same flags and
 * identities as in the project's own federation), and what interop tests and benchmarks read back
 * from both sides.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AppsV1Api } from '@kubernetes/client-node';
import {
  clusterKind,
  findCondition,
  findTaint,
  propagationPolicyKind,
  resourceBindingKind,
  workKind,
  type Cluster,
  type PropagationPolicy,
  type ResourceBinding,
  type TaintIdentity,
  type Work,
} from '@kf/api';
import { ResourceClient } from '@kf/kube';
import { agentKubeconfig, applyAgentAccess } from './agent-access.ts';
import type { LocalCluster } from './cluster.ts';
import { agentProcess } from './failover-federation.ts';
import { startMember } from './federation.ts';
import { KarmadaControlPlane, karmadaBinaries, type KarmadaOptions } from './karmada.ts';
import type { ManagedProcess } from './process.ts';
import { demoDeployment } from './rollout.ts';
import type { MemberOptions } from './types.ts';

const execFileAsync = promisify(execFile);
const NAMESPACE = 'default';
export const NOT_READY_NO_EXECUTE: TaintIdentity = {
  key: 'cluster.karmada.io/not-ready',
  effect: 'NoExecute',
};

export interface KarmadaFederationOptions {
  /** Member names (default member1, member2). */
  readonly members?: readonly string[];
  /** KWOK nodes and their capacity per member (default one node). */
  readonly member?: MemberOptions;
  readonly karmada?: KarmadaOptions;
  /** Members joined in Push mode by Karmada's `karmadactl join` (no agent; Karmada's controller-manager hosts them). */
  readonly pushMembers?: readonly string[];
}

/** Karmada's control plane with members running the project's agent. */
export class KarmadaFederation {
  readonly karmada: KarmadaControlPlane;
  readonly clusters: ResourceClient<Cluster>;
  readonly bindings: ResourceClient<ResourceBinding>;
  readonly works: ResourceClient<Work>;
  readonly policies: ResourceClient<PropagationPolicy>;
  readonly #members = new Map<string, LocalCluster>();
  readonly #agents = new Map<string, ManagedProcess>();

  private constructor(karmada: KarmadaControlPlane) {
    this.karmada = karmada;
    const kc = karmada.cluster.kubeConfig();
    this.clusters = new ResourceClient<Cluster>(kc, clusterKind);
    this.bindings = new ResourceClient<ResourceBinding>(kc, resourceBindingKind);
    this.works = new ResourceClient<Work>(kc, workKind);
    this.policies = new ResourceClient<PropagationPolicy>(kc, propagationPolicyKind);
  }

  /** Karmada, then the members one after another, then the project's agent in each. */
  static async start(opts: KarmadaFederationOptions = {}): Promise<KarmadaFederation> {
    const members = opts.members ?? ['member1', 'member2'];
    const peer = new KarmadaFederation(await KarmadaControlPlane.start(opts.karmada));
    try {
      for (const name of members) {
        peer.#members.set(name, await startMember(name, peer.karmada.runDir, { nodes: 1, ...opts.member }));
      }
      const push = new Set(opts.pushMembers ?? []);
      const pull = members.filter((m) => !push.has(m));
      await applyAgentAccess(peer.karmada.cluster, pull);
      for (const name of pull) await peer.startAgent(name);
      for (const name of members.filter((m) => push.has(m))) await peer.#karmadactlJoin(name);
      return peer;
    } catch (err) {
      await peer.destroy();
      throw err;
    }
  }

  member(name: string): LocalCluster {
    const m = this.#members.get(name);
    if (m === undefined) throw new Error(`no member ${name}`);
    return m;
  }

  /** Starts the project's agent of a member (again, after killAgent). */
  async startAgent(name: string): Promise<void> {
    const { process: agent } = await agentProcess({
      member: this.member(name),
      karmadaKubeconfig: await agentKubeconfig(this.karmada.cluster, name),
      runDir: this.karmada.runDir,
    });
    await agent.start();
    this.#agents.set(name, agent);
  }

  /** `karmadactl join <name>` with the member's admin kubeconfig, against Karmada's API server. */
  async #karmadactlJoin(name: string): Promise<void> {
    await execFileAsync(
      (await karmadaBinaries()).karmadactl,
      [
        'join',
        name,
        `--cluster-kubeconfig=${this.member(name).kubeconfigPath}`,
        `--kubeconfig=${this.karmada.cluster.kubeconfigPath}`,
      ],
      { env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 },
    );
  }

  /** SIGKILLs the member's agent. */
  async killAgent(name: string): Promise<void> {
    await this.#agents.get(name)?.kill();
  }

  async destroy(): Promise<void> {
    await Promise.allSettled([...this.#agents.values()].map((a) => a.stop()));
    await Promise.allSettled([...this.#members.values()].map((m) => m.stop()));
    await this.karmada.destroy();
  }

  async readyStatus(cluster: string): Promise<string | undefined> {
    return findCondition((await this.clusters.find(cluster))?.status?.conditions, 'Ready')?.status;
  }

  async tainted(cluster: string, taint: TaintIdentity): Promise<boolean> {
    return findTaint((await this.clusters.get(cluster)).spec.taints, taint) !== undefined;
  }

  /** A policy dividing `app`'s replicas over `members` by equal static weights, then the Deployment. */
  async propagateDivided(app: string, members: readonly string[], replicas: number): Promise<void> {
    await this.policies.create({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: app, namespace: NAMESPACE },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: app }],
        placement: {
          clusterAffinity: { clusterNames: [...members] },
          replicaScheduling: {
            replicaSchedulingType: 'Divided',
            replicaDivisionPreference: 'Weighted',
            weightPreference: {
              staticWeightList: members.map((m) => ({ targetCluster: { clusterNames: [m] }, weight: 1 })),
            },
          },
        },
      },
    });
    await this.templates().createNamespacedDeployment({
      namespace: NAMESPACE,
      body: demoDeployment(app, replicas),
    });
  }

  /** Deployments (resource templates) on Karmada. */
  templates(): AppsV1Api {
    return this.karmada.cluster.kubeConfig().makeApiClient(AppsV1Api);
  }

  /** The member's copy of a Deployment: replicas asked and available; undefined when absent. */
  async memberCopy(
    member: string,
    app: string,
  ): Promise<{ replicas: number; available: number } | undefined> {
    const apps = this.member(member).kubeConfig().makeApiClient(AppsV1Api);
    try {
      const d = await apps.readNamespacedDeployment({ name: app, namespace: NAMESPACE });
      return { replicas: d.spec?.replicas ?? 0, available: d.status?.availableReplicas ?? 0 };
    } catch (err: unknown) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }

  /** The binding of a Deployment. */
  binding(app: string): Promise<ResourceBinding | undefined> {
    return this.bindings.find(`${NAMESPACE}/${app}-deployment`);
  }

  /** The binding's placement as `{ cluster: replicas }`. */
  async placement(app: string): Promise<Record<string, number>> {
    const rb = await this.binding(app);
    return Object.fromEntries((rb?.spec.clusters ?? []).map((c) => [c.name, c.replicas ?? 0]));
  }

  /** Whether `app` is placed on `member` alone, with all `replicas` there and available. */
  async runsAllOn(app: string, member: string, replicas: number): Promise<boolean> {
    const p = await this.placement(app);
    return (
      Object.keys(p).join() === member &&
      p[member] === replicas &&
      (await this.memberCopy(member, app))?.available === replicas
    );
  }

  /** The Works of a Deployment in a member's execution namespace. */
  async worksIn(member: string, app: string): Promise<Work[]> {
    const list = await this.works.list({ namespace: `karmada-es-${member}` });
    return list.items.filter((w) => w.metadata.name?.startsWith(app) === true);
  }
}
