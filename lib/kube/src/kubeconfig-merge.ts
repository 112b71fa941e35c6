/**
 * How client-go combines the files of a `$KUBECONFIG` list (clientcmd's loading rules): the
 * first file to name a cluster, user or context wins it, later files only add names not seen
 * yet, and the first file that sets `current-context` chooses it. Pure: the files come in as
 * client-node has read them.
 */
import { delimiter } from 'node:path';
import type { Cluster, Context, User } from '@kubernetes/client-node';

/** What one kubeconfig file contributes. */
export interface KubeConfigParts {
  readonly clusters: readonly Cluster[];
  readonly users: readonly User[];
  readonly contexts: readonly Context[];
  /** Empty or undefined: the file sets none. */
  readonly currentContext?: string | undefined;
}

/** The files merged, first one winning every name and the current context. */
export function mergeKubeConfigs(files: readonly KubeConfigParts[]): Required<KubeConfigParts> {
  return {
    clusters: firstByName(files.map((f) => f.clusters)),
    users: firstByName(files.map((f) => f.users)),
    contexts: firstByName(files.map((f) => f.contexts)),
    currentContext: files.map((f) => f.currentContext ?? '').find((c) => c !== '') ?? '',
  };
}

function firstByName<T extends { readonly name: string }>(lists: readonly (readonly T[])[]): T[] {
  const seen = new Map<string, T>();
  for (const item of lists.flat()) if (!seen.has(item.name)) seen.set(item.name, item);
  return [...seen.values()];
}

/** The paths of a `$KUBECONFIG` value (`:`-separated; empty entries ignored), in order. */
export function kubeconfigEnvPaths(value: string | undefined): string[] {
  return (value ?? '').split(delimiter).filter((p) => p !== '');
}
