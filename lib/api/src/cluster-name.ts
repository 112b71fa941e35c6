/** What makes a Cluster name valid, for every program that takes one. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Cluster names: RFC 1123 labels of at most 48 characters (room for the `karmada-es-` prefix). */
export function clusterNameProblem(name: string): string | undefined {
  if (name === '') return 'is required';
  if (name.length > 48) return `must be at most 48 characters, got ${name.length}`;
  if (!DNS_LABEL.test(name)) {
    return 'must be a DNS label: lower-case letters, digits and "-", starting and ending with a letter or digit';
  }
  return undefined;
}
