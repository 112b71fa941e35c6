/**
 * `controlplane unjoin`: removes a Push cluster. Deletes the Cluster and waits for it to go: the
 * control plane's cluster controller first removes its execution namespace `karmada-es-<cluster>`
 * (its Works, and through them the copies in the member while it is reachable) and waits for the
 * bindings to leave it. Then the credential Secret `karmada-cluster/<cluster>` (kept until then:
 * removing the copies needs it), then, given the member's kubeconfig, the ServiceAccount, token and
 * role that `join` made in the member. A Pull cluster is refused: its agent registered it and would
 * register it again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { clusterKind, namespaces, syncModes, type Cluster } from '@kf/api';
import { KubeError, ResourceClient } from '@kf/kube';
import { SECRET_RESOURCE, credentialNames, type Secret } from '@kf/member';
import { ConfigError, type Logger } from '@kf/runtime';
import { deleteIfThere, removeMemberAccess } from './member-access-objects.ts';

export interface UnjoinRequest {
  readonly name: string;
  /** How long to wait for the Cluster to be gone. */
  readonly waitMs: number;
}

export interface UnjoinDeps {
  readonly controlPlane: KubeConfig;
  /** The member, to remove the access `join` made there; undefined leaves the member as it is. */
  readonly member?: KubeConfig;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

/** What was removed, one line each, in order. */
export async function unjoinCluster(req: UnjoinRequest, deps: UnjoinDeps): Promise<string[]> {
  const clusters = new ResourceClient<Cluster>(deps.controlPlane, clusterKind);
  const names = credentialNames(req.name, namespaces.cluster);
  const cluster = await clusters.find(req.name, { signal: deps.signal });
  if (cluster === undefined && deps.member === undefined) throw new ConfigError([`no Cluster ${req.name}`]);
  if (cluster !== undefined && cluster.spec.syncMode !== syncModes.push) {
    throw new ConfigError([
      `cluster ${req.name} is in ${cluster.spec.syncMode} mode: its agent registered it; uninstall the agent, then delete the Cluster`,
    ]);
  }
  const removed: string[] = [];
  if (cluster !== undefined) {
    await deleteIfThere(clusters, req.name, deps.signal);
    await waitUntilGone(clusters, req, deps.signal);
    removed.push(`Cluster ${req.name}`);
  }
  const secret = `${names.namespace}/${names.credentialsSecret}`;
  if (
    await deleteIfThere(new ResourceClient<Secret>(deps.controlPlane, SECRET_RESOURCE), secret, deps.signal)
  ) {
    removed.push(`Secret ${secret}`);
  }
  if (deps.member !== undefined) {
    const inMember = await removeMemberAccess(deps.member, names, deps.log, deps.signal);
    removed.push(...inMember.map((what) => `member ${what}`));
  }
  deps.log.info({ cluster: req.name, removed }, 'cluster unjoined');
  return removed;
}

/** Polls until the Cluster is gone; says what it waits on when it does not go in time. */
async function waitUntilGone(
  clusters: ResourceClient<Cluster>,
  req: UnjoinRequest,
  signal: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + req.waitMs;
  for (;;) {
    const left = await clusters.find(req.name, { signal });
    if (left === undefined) return;
    if (Date.now() >= deadline) {
      const waiting = (left.metadata.finalizers ?? []).join(', ');
      throw new KubeError(
        'Timeout',
        `Cluster ${req.name} is being deleted but still there after ${String(Math.round(req.waitMs / 1000))}s` +
          (waiting === '' ? '' : ` (finalizers: ${waiting}; is the control plane running?)`),
      );
    }
    await sleep(500, undefined, { signal });
  }
}
