/**
 * What an identity may do, asked by the identity itself, as `kubectl auth can-i` and
 * `kubectl auth whoami` ask: permission tests run as the real identity (a ServiceAccount token, an
 * agent's certificate), never as an admin reviewing on its behalf.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { ResourceClient, type KubeObject, type ResourceDescriptor } from '@kf/kube';
import type { LocalCluster } from './cluster.ts';

/** A v1 resource of `group`, to name in tests. */
export function v1Resource(
  group: string,
  plural: string,
  kind: string,
  namespaced: boolean,
): ResourceDescriptor {
  return { group, version: 'v1', plural, kind, namespaced };
}

const ACCESS_REVIEWS = v1Resource(
  'authorization.k8s.io',
  'selfsubjectaccessreviews',
  'SelfSubjectAccessReview',
  false,
);
const SUBJECT_REVIEWS = v1Resource('authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview', false);

interface Review extends KubeObject {
  readonly status?: {
    readonly allowed?: boolean;
    readonly userInfo?: { readonly username?: string; readonly extra?: Record<string, string[]> };
  };
}

/** What an access review names: a resource (optionally by name, in a namespace). */
export interface AccessTarget {
  readonly group?: string;
  readonly resource: string;
  readonly name?: string;
  readonly namespace?: string;
}

/** `kubectl auth can-i <verb> <what>`, asked by the holder of `kc`. */
export async function canI(kc: KubeConfig, verb: string, what: AccessTarget): Promise<boolean> {
  const review = await new ResourceClient<Review>(kc, ACCESS_REVIEWS).create({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { verb, ...what } },
  } as Review);
  return review.status?.allowed === true;
}

/** `kubectl auth whoami`: the user name and extra fields the API server sees for `kc`. */
export async function whoAmI(
  kc: KubeConfig,
): Promise<{ readonly username?: string; readonly extra?: Record<string, string[]> }> {
  const review = await new ResourceClient<Review>(kc, SUBJECT_REVIEWS).create({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  return review.status?.userInfo ?? {};
}

/**
 * A client of `cluster`'s API server that authenticates with `token` only (a ServiceAccount's),
 * verifying the server against the cluster's CA: the identity itself, nothing of the admin's.
 */
export function bearerKubeConfig(cluster: LocalCluster, token: string): KubeConfig {
  const admin = cluster.kubeConfig().getCurrentCluster();
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: cluster.name,
        server: cluster.server,
        skipTLSVerify: false,
        ...(admin?.caData === undefined ? {} : { caData: admin.caData }),
        ...(admin?.caFile === undefined ? {} : { caFile: admin.caFile }),
      },
    ],
    users: [{ name: 'bearer', token }],
    contexts: [{ name: 'bearer', cluster: cluster.name, user: 'bearer' }],
    currentContext: 'bearer',
  });
  return kc;
}
