/**
 * Takes a Push cluster's access out of its member: the ClusterRoleBinding and ClusterRole
 * `karmada-controller-manager:karmada-<cluster>`, the ServiceAccount `karmada-<cluster>` and its
 * token Secret (deleting the ServiceAccount invalidates the token at once). Objects already gone
 * are fine. The namespace stays: a member agent or another tool may keep objects in it.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ResourceClient, isNotFound, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import {
  CLUSTER_ROLE_BINDING_RESOURCE,
  CLUSTER_ROLE_RESOURCE,
  SECRET_RESOURCE,
  SERVICE_ACCOUNT_RESOURCE,
  type CredentialNames,
} from '@kf/member';
import type { Logger } from '@kf/runtime';

/** Deletes the member objects behind a Push cluster's credentials; returns what was deleted. */
export async function removeMemberAccess(
  member: KubeConfig,
  names: CredentialNames,
  log: Logger,
  signal?: AbortSignal,
): Promise<string[]> {
  const ns = names.namespace;
  const targets: [ResourceDescriptor, string][] = [
    [CLUSTER_ROLE_BINDING_RESOURCE, names.clusterRole],
    [CLUSTER_ROLE_RESOURCE, names.clusterRole],
    [SECRET_RESOURCE, `${ns}/${names.credentialsServiceAccount}`],
    [SERVICE_ACCOUNT_RESOURCE, `${ns}/${names.credentialsServiceAccount}`],
  ];
  const deleted: string[] = [];
  for (const [resource, key] of targets) {
    try {
      await new ResourceClient<KubeObject>(member, resource).delete(
        key,
        signal === undefined ? {} : { signal },
      );
      deleted.push(`${resource.kind ?? resource.plural}/${key}`);
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
    }
  }
  if (deleted.length > 0) log.info({ deleted }, 'member access removed');
  return deleted;
}
