/**
 * Takes a Push cluster's access out of its member: the ClusterRoleBinding and ClusterRole
 * `karmada-controller-manager:karmada-<cluster>`, the ServiceAccount `karmada-<cluster>` and its
 * token Secret (deleting the ServiceAccount invalidates the token at once). Objects already gone
 * are fine. The namespace stays: a member agent or another tool may keep objects in it.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ResourceClient, isNotFound, type KubeObject } from '@kf/kube';
import { credentialObjectsToRemove, type CredentialNames } from '@kf/member';
import type { Logger } from '@kf/runtime';

/** Deletes the member objects behind a Push cluster's credentials; returns what was deleted. */
export async function removeMemberAccess(
  member: KubeConfig,
  names: CredentialNames,
  log: Logger,
  signal?: AbortSignal,
): Promise<string[]> {
  const deleted: string[] = [];
  for (const { resource, key } of credentialObjectsToRemove(names)) {
    const client = new ResourceClient<KubeObject>(member, resource);
    if (await deleteIfThere(client, key, signal)) deleted.push(`${resource.kind ?? resource.plural}/${key}`);
  }
  if (deleted.length > 0) log.info({ deleted }, 'member access removed');
  return deleted;
}

/** Deletes the object; false when it was not there (already gone is as good as deleted). */
export async function deleteIfThere(
  client: ResourceClient<KubeObject>,
  key: string,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  try {
    await client.delete(key, signal === undefined ? {} : { signal });
    return true;
  } catch (err: unknown) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
