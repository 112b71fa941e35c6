/** The namespace in the control plane that holds the Works of one member cluster. */

export const executionNamespacePrefix = 'karmada-es-';

/** `karmada-es-<cluster>`. */
export function executionNamespaceFor(clusterName: string): string {
  return `${executionNamespacePrefix}${clusterName}`;
}

/** The cluster an execution namespace belongs to; undefined for any other namespace. */
export function clusterNameFromExecutionNamespace(namespace: string): string | undefined {
  if (!namespace.startsWith(executionNamespacePrefix)) return undefined;
  const cluster = namespace.slice(executionNamespacePrefix.length);
  return cluster === '' ? undefined : cluster;
}

export function isExecutionNamespace(namespace: string): boolean {
  return clusterNameFromExecutionNamespace(namespace) !== undefined;
}
