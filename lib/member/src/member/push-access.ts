/**
 * How the control plane reaches a Push member: the Cluster says where (`spec.apiEndpoint`), how
 * (`insecureSkipTLSVerification`, `proxyURL`) and with what (`spec.secretRef`: a Secret whose
 * `token` is a bearer token and `caBundle` the member's CA, both base64 as Secrets keep them).
 * TLS is verified unless the Cluster says otherwise; a missing CA falls back on the system's roots.
 * Nothing here is logged: the token stays in the KubeConfig.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { clusterSecretKeys, type Cluster } from '@kf/api';
import type { Secret } from '../registration/credentials-plan.ts';

/** A KubeConfig for the member, or what keeps the control plane from reaching it. */
export type PushAccess =
  | { readonly kind: 'ready'; readonly kubeConfig: KubeConfig }
  | { readonly kind: 'problem'; readonly problem: string };

/** Where the Cluster's credentials live (`namespace/name`), or undefined when it names none. */
export function pushSecretKey(cluster: Cluster): string | undefined {
  const ref = cluster.spec.secretRef;
  if (ref === undefined || ref.namespace === '' || ref.name === '') return undefined;
  return `${ref.namespace}/${ref.name}`;
}

/** The member's KubeConfig from its Cluster and credential Secret (undefined: not found). */
export function pushMemberAccess(cluster: Cluster, secret: Secret | undefined): PushAccess {
  const found = accessProblem(cluster, secret);
  if (found !== undefined) return problem(`cluster ${cluster.metadata.name ?? ''}${found}`);
  const name = cluster.metadata.name ?? '';
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [clusterEntry(name, cluster, secret?.data?.[clusterSecretKeys.caBundle] ?? '')],
    users: [{ name: `karmada-${name}`, token: decode(secret?.data?.[clusterSecretKeys.token]) }],
    contexts: [{ name, cluster: name, user: `karmada-${name}` }],
    currentContext: name,
  });
  return { kind: 'ready', kubeConfig: kc };
}

/** What keeps the Cluster from being reached, after its name (` has no …`, `: …`), or undefined. */
function accessProblem(cluster: Cluster, secret: Secret | undefined): string | undefined {
  const endpoint = endpointOf(cluster);
  const key = pushSecretKey(cluster);
  if (endpoint === '') return ' has no spec.apiEndpoint';
  if (!/^https?:\/\//.test(endpoint)) return `: spec.apiEndpoint ${endpoint} is not an http(s) URL`;
  if (key === undefined) return ' has no spec.secretRef';
  if (secret === undefined) return `: Secret ${key} not found`;
  if (decode(secret.data?.[clusterSecretKeys.token]) === '')
    return `: Secret ${key} has no ${clusterSecretKeys.token}`;
  if (Object.keys(cluster.spec.proxyHeader ?? {}).length > 0)
    return ': spec.proxyHeader is not supported yet';
  return undefined;
}

/** The kubeconfig cluster: TLS verified against the CA unless the Cluster says otherwise. */
function clusterEntry(name: string, cluster: Cluster, caData: string) {
  const insecure = cluster.spec.insecureSkipTLSVerification === true;
  const proxyUrl = cluster.spec.proxyURL ?? '';
  return {
    name,
    server: endpointOf(cluster),
    skipTLSVerify: insecure,
    ...(caData === '' || insecure ? {} : { caData }),
    ...(proxyUrl === '' ? {} : { proxyUrl }),
  };
}

function endpointOf(cluster: Cluster): string {
  return (cluster.spec.apiEndpoint ?? '').replace(/\/+$/, '');
}

function problem(text: string): PushAccess {
  return { kind: 'problem', problem: text };
}

function decode(base64: string | undefined): string {
  return base64 === undefined ? '' : Buffer.from(base64, 'base64').toString('utf8').trim();
}
