/**
 * The fully qualified names a stub resolver tries for `name`, in order, as glibc's res_nsearch
 * (and so nslookup in a pod) does:
 * - a trailing dot makes the name absolute: only the name itself;
 * - a name with at least `ndots` dots is tried as written first, then with each search domain;
 * - otherwise each search domain first, then the name as written.
 * Names are returned without trailing dots, lower-case, duplicates dropped. In a pod (`ndots:5`,
 * `search default.svc.cluster.local svc.cluster.local cluster.local`), `kubernetes.default`
 * becomes `kubernetes.default.default.svc.cluster.local`, `kubernetes.default.svc.cluster.local`,
 * `kubernetes.default.cluster.local`, `kubernetes.default`.
 */
export function candidateNames(
  name: string,
  conf: { readonly search: readonly string[]; readonly ndots: number },
): string[] {
  const lower = name.toLowerCase();
  if (lower.endsWith('.')) return [lower.replace(/\.+$/, '')];
  const searched = conf.search.map((domain) => `${lower}.${domain.toLowerCase()}`);
  const dots = lower.split('.').length - 1;
  const ordered = dots >= conf.ndots ? [lower, ...searched] : [...searched, lower];
  return [...new Set(ordered)];
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/**
 * True for a name a lookup can be asked for: labels of 1–63 letters, digits, `-` or `_` (not
 * starting or ending with `-`), at most 253 characters, optionally ending with a dot.
 */
export function isValidDnsName(name: string): boolean {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  if (bare === '' || bare.length > 253) return false;
  return bare.split('.').every((label) => LABEL.test(label));
}
