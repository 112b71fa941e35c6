/** The operator commands: set or clear a Cluster condition, print a Cluster's state. */
import {
  clusterKind,
  jsonEqual,
  removeCondition,
  setCondition,
  type Cluster,
  type ClusterStatus,
} from '@kf/api';
import { ResourceClient, loadKubeConfigs, updateWithRetry } from '@kf/kube';
import type { ConditionClearConfig, ConditionSetConfig, KarmadaConnection, StatusConfig } from '../cli.ts';
import { karmadaKubeConfigNeeded } from '../kubeconfig-path.ts';
import { formatClusterStatus } from './status-table.ts';

function clusters(c: KarmadaConnection): ResourceClient<Cluster> {
  const { karmada } = loadKubeConfigs({
    karmada: karmadaKubeConfigNeeded(c.karmadaKubeconfig, c.karmadaContext),
  });
  return new ResourceClient<Cluster>(karmada, clusterKind);
}

/** Read, change the status, PUT /status; on a conflict start again from a fresh read. */
async function updateStatus(
  client: ResourceClient<Cluster>,
  name: string,
  change: (s: ClusterStatus | undefined) => ClusterStatus,
): Promise<boolean> {
  let wrote = false;
  await updateWithRetry<Cluster>({
    read: () => client.get(name),
    mutate: (current) => {
      const status = change(current.status);
      return jsonEqual(status, current.status ?? {}) ? undefined : { ...current, status };
    },
    write: async (next) => {
      wrote = true;
      return client.replaceStatus(next);
    },
  });
  return wrote;
}

/** Sets the condition; returns a line for the terminal. */
export async function conditionSet(c: ConditionSetConfig, nowMs: () => number = Date.now): Promise<string> {
  const wrote = await updateStatus(clusters(c), c.cluster, (s) => ({
    ...s,
    conditions: setCondition(
      s?.conditions,
      { type: c.type, status: c.status, reason: c.reason, message: c.message },
      nowMs(),
    ),
  }));
  return `cluster/${c.cluster} condition ${c.type}=${c.status} ${wrote ? 'set' : 'unchanged'}`;
}

export async function conditionClear(c: ConditionClearConfig): Promise<string> {
  const wrote = await updateStatus(clusters(c), c.cluster, (s) => ({
    ...s,
    conditions: removeCondition(s?.conditions, c.type),
  }));
  return `cluster/${c.cluster} condition ${c.type} ${wrote ? 'cleared' : 'not present'}`;
}

export async function clusterStatus(c: StatusConfig, nowMs: () => number = Date.now): Promise<string> {
  return formatClusterStatus(await clusters(c).get(c.cluster), nowMs());
}
