/**
 * The objects behind `--report-secrets`, as plain data: what the agent makes sure exists in the
 * member (namespace, ServiceAccounts, the credentials ClusterRole and its binding, token Secrets)
 * and the Secrets it applies in the control plane from the member's tokens.
 */
import {
  clusterKind,
  clusterSecretKeys,
  labels,
  type Cluster,
  type ObjectMeta,
  type PolicyRule,
} from '@kf/api';
import type { KubeObject, ResourceDescriptor } from '@kf/kube';
import type { CredentialNames, ReportedSecrets } from './credential-names.ts';

export interface Secret extends KubeObject {
  readonly metadata: ObjectMeta;
  readonly type?: string;
  /** Base64 values. */
  readonly data?: Readonly<Record<string, string>>;
}

export interface ClusterRole extends KubeObject {
  readonly metadata: ObjectMeta;
  readonly rules: readonly PolicyRule[];
}

export interface ClusterRoleBinding extends KubeObject {
  readonly metadata: ObjectMeta;
  readonly roleRef: { readonly apiGroup: string; readonly kind: string; readonly name: string };
  readonly subjects: readonly { readonly kind: string; readonly name: string; readonly namespace?: string }[];
}

export interface MemberObject extends KubeObject {
  readonly metadata: ObjectMeta;
}

const core = (plural: string, kind: string, namespaced: boolean): ResourceDescriptor => ({
  group: '',
  version: 'v1',
  plural,
  namespaced,
  kind,
});
const rbac = (plural: string, kind: string): ResourceDescriptor => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural,
  namespaced: false,
  kind,
});

export const SECRET_RESOURCE = core('secrets', 'Secret', true);
export const SERVICE_ACCOUNT_RESOURCE = core('serviceaccounts', 'ServiceAccount', true);
export const CLUSTER_ROLE_RESOURCE = rbac('clusterroles', 'ClusterRole');
export const CLUSTER_ROLE_BINDING_RESOURCE = rbac('clusterrolebindings', 'ClusterRoleBinding');

/** Legacy (long-lived) ServiceAccount tokens: the member's token controller fills these Secrets. */
export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';

const SYSTEM_LABELS = { [labels.system]: 'true' } as const;

/** A member object to create when missing (never updated: "ensure" as upstream). */
export interface EnsureStep {
  readonly resource: ResourceDescriptor;
  readonly object: MemberObject;
}

/**
 * The rules of the credentials ClusterRole when an agent reports `KubeCredentials`: every verb on
 * every resource, plus `get` on every non-resource URL, as Karmada's own registration grants.
 */
export const EVERY_VERB_RULES: readonly PolicyRule[] = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['get'] },
];

/**
 * What the member must hold, in order: for the impersonator its ServiceAccount; for the
 * credentials their ServiceAccount and a ClusterRole of `rules` (by default
 * {@link EVERY_VERB_RULES}) bound to it. The namespace comes first, token Secrets are waited for
 * separately ({@link tokenSecret}). Nothing when nothing is reported.
 */
export function memberCredentialSteps(
  names: CredentialNames,
  reported: ReportedSecrets,
  rules: readonly PolicyRule[] = EVERY_VERB_RULES,
): EnsureStep[] {
  if (!reported.credentials && !reported.impersonator) return [];
  const ns = names.namespace;
  const steps: EnsureStep[] = [
    {
      resource: core('namespaces', 'Namespace', false),
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: SYSTEM_LABELS } },
    },
  ];
  if (reported.impersonator) steps.push(serviceAccountStep(names.impersonatorServiceAccount, ns));
  if (reported.credentials) {
    steps.push(serviceAccountStep(names.credentialsServiceAccount, ns));
    const role: ClusterRole = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: names.clusterRole, labels: SYSTEM_LABELS },
      rules: rules.map((rule) => ({ ...rule })),
    };
    const binding: ClusterRoleBinding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: names.clusterRole, labels: SYSTEM_LABELS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: names.clusterRole },
      subjects: [{ kind: 'ServiceAccount', name: names.credentialsServiceAccount, namespace: ns }],
    };
    steps.push({ resource: CLUSTER_ROLE_RESOURCE, object: role });
    steps.push({ resource: CLUSTER_ROLE_BINDING_RESOURCE, object: binding });
  }
  return steps;
}

function serviceAccountStep(name: string, namespace: string): EnsureStep {
  return {
    resource: SERVICE_ACCOUNT_RESOURCE,
    object: {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace, labels: SYSTEM_LABELS },
    },
  };
}

/** The token Secret of a ServiceAccount, named after it, for the token controller to fill. */
export function tokenSecret(serviceAccount: string, namespace: string): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: SERVICE_ACCOUNT_TOKEN_TYPE,
    metadata: {
      name: serviceAccount,
      namespace,
      labels: SYSTEM_LABELS,
      annotations: { [SERVICE_ACCOUNT_NAME_ANNOTATION]: serviceAccount },
    },
  };
}

/**
 * What the credentials ServiceAccount stands on in the member, in the order to take it away: the
 * binding and role first (the token can do nothing from then on), then the token Secret and the
 * ServiceAccount. The namespace is not among them: others may keep objects in it.
 */
export function credentialObjectsToRemove(
  names: CredentialNames,
): { resource: ResourceDescriptor; key: string }[] {
  const keyOf = (o: MemberObject): string =>
    o.metadata.namespace === undefined
      ? (o.metadata.name ?? '')
      : `${o.metadata.namespace}/${o.metadata.name ?? ''}`;
  return memberCredentialSteps(names, { credentials: true, impersonator: false })
    .filter((step) => step.object.kind !== 'Namespace')
    .reverse()
    .flatMap((step) => {
      const own = { resource: step.resource, key: keyOf(step.object) };
      if (step.resource !== SERVICE_ACCOUNT_RESOURCE) return [own];
      const token = tokenSecret(names.credentialsServiceAccount, names.namespace);
      return [{ resource: SECRET_RESOURCE, key: keyOf(token) }, own];
    });
}

/** A filled token Secret's values (base64, as stored). */
export interface MemberToken {
  readonly token: string;
  /** The member's CA (`ca.crt`); empty when the token controller has none. */
  readonly caCrt: string;
}

/** The token once the token controller has filled the Secret; undefined until then. */
export function filledToken(secret: Secret | undefined): MemberToken | undefined {
  const token = secret?.data?.token ?? '';
  if (token === '') return undefined;
  return { token, caCrt: secret?.data?.['ca.crt'] ?? '' };
}

/** The member tokens behind the reported secrets. */
export interface MemberTokens {
  readonly credentials?: MemberToken;
  readonly impersonator?: MemberToken;
}

/**
 * The control-plane Secrets for the reported tokens, labelled `karmada.io/system` and owned by
 * the Cluster (deleting the Cluster deletes them): `<cluster>-impersonator` with `token`, and
 * `<cluster>` with `token` and `caBundle` (the member CA).
 */
export function controlPlaneSecrets(names: CredentialNames, tokens: MemberTokens, owner: Cluster): Secret[] {
  const metadata = (name: string): ObjectMeta => ({
    name,
    namespace: names.namespace,
    labels: SYSTEM_LABELS,
    ownerReferences: [
      {
        apiVersion: clusterKind.apiVersion,
        kind: clusterKind.kind,
        name: owner.metadata.name ?? '',
        uid: owner.metadata.uid ?? '',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  });
  const secrets: Secret[] = [];
  if (tokens.impersonator !== undefined) {
    secrets.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: metadata(names.impersonatorSecret),
      data: { [clusterSecretKeys.token]: tokens.impersonator.token },
    });
  }
  if (tokens.credentials !== undefined) {
    secrets.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: metadata(names.credentialsSecret),
      data: {
        [clusterSecretKeys.token]: tokens.credentials.token,
        [clusterSecretKeys.caBundle]: tokens.credentials.caCrt,
      },
    });
  }
  return secrets;
}
