/**
 * The member agents' access to a control plane, as an operator sets it up: deploy/agent (the
 * group's ClusterRole and the admission policy) and, for each member, the per-cluster RBAC that
 * `karmada-failover-agent rbac --cluster-name <member>` prints (the same function renders both).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { agentIdentity, agentUserFor, namespaces, renderAgentAccess } from '@kf/api';
import { ResourceClient, type KubeObject } from '@kf/kube';
import { REPO_ROOT } from './binaries.ts';
import type { LocalCluster } from './cluster.ts';
import { waitUntil } from './readiness.ts';

const AGENT_ACCESS_DIR = join(REPO_ROOT, 'deploy', 'agent');
export const AGENT_RBAC_FILE = join(AGENT_ACCESS_DIR, 'rbac.yaml');
export const AGENT_POLICY_FILE = join(AGENT_ACCESS_DIR, 'validating-admission-policy.yaml');
/** What Karmada's karmada-agent reads beyond the project's agent (only where one runs). */
export const KARMADA_AGENT_RBAC_FILE = join(AGENT_ACCESS_DIR, 'karmada-agent.yaml');

/** A kubeconfig file for the member agent of `cluster`, as `karmadactl register` issues it. */
export function agentKubeconfig(cp: LocalCluster, cluster: string): Promise<string> {
  return cp.userKubeconfig(agentUserFor(cluster), [agentIdentity.group]);
}

export interface AgentAccessOptions {
  /** Apply the ValidatingAdmissionPolicy too (default true); false leaves RBAC as the only fence. */
  readonly admissionPolicy?: boolean;
  /**
   * Members that run Karmada's karmada-agent: their per-cluster RBAC is the `--karmada-agent` one,
   * and deploy/agent/karmada-agent.yaml is applied too (default none).
   */
  readonly karmadaAgents?: readonly string[];
}

/**
 * Applies deploy/agent and the per-cluster RBAC of each member (namespace karmada-system must
 * exist), then waits until the API server's authorizer grants every member its heartbeat Lease.
 */
export async function applyAgentAccess(
  cp: LocalCluster,
  clusters: readonly string[],
  opts: AgentAccessOptions = {},
): Promise<void> {
  const files = [
    AGENT_RBAC_FILE,
    ...(opts.admissionPolicy === false ? [] : [AGENT_POLICY_FILE]),
    ...((opts.karmadaAgents ?? []).length > 0 ? [KARMADA_AGENT_RBAC_FILE] : []),
  ];
  await kubectlApply(
    cp,
    files.flatMap((f) => ['-f', f]),
  );
  if (clusters.length > 0) {
    await kubectlApply(
      cp,
      ['-f', '-'],
      clusters
        .map((c) => renderAgentAccess(c, { karmadaAgent: opts.karmadaAgents?.includes(c) === true }))
        .join('\n'),
    );
  }
  const reviews = new ResourceClient<SubjectAccessReview>(cp.kubeConfig(), {
    group: 'authorization.k8s.io',
    version: 'v1',
    plural: 'subjectaccessreviews',
    namespaced: false,
    kind: 'SubjectAccessReview',
  });
  await Promise.all(
    clusters.map((cluster) =>
      waitUntil(
        `RBAC of the agent of ${cluster} in force`,
        async () => {
          const review = await reviews.create({
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: {
              user: agentUserFor(cluster),
              resourceAttributes: {
                group: 'coordination.k8s.io',
                resource: 'leases',
                verb: 'update',
                namespace: namespaces.cluster,
                name: cluster,
              },
            },
          });
          return review.status?.allowed === true;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      ),
    ),
  );
}

interface SubjectAccessReview extends KubeObject {
  readonly spec: object;
  readonly status?: { readonly allowed?: boolean };
}

function kubectlApply(cp: LocalCluster, args: readonly string[], stdin?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(cp.kubectlPath, cp.kubectlArgs('apply', ...args), (err, _stdout, stderr) => {
      if (err === null) resolve();
      else reject(new Error(`kubectl apply ${args.join(' ')}: ${stderr}`, { cause: err }));
    });
    child.stdin?.end(stdin ?? '');
  });
}
