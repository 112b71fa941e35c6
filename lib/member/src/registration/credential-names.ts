/**
 * Which credentials of a member reach the control plane (a Pull agent's `--report-secrets`, a Push
 * join's token) and the names of the objects behind them, in the member and in the control plane.
 */
import { agentCredentialSecretsFor, type LocalSecretReference } from '@kf/api';

export interface ReportedSecrets {
  /** A cluster-wide token and the member CA: Secret `<cluster>`, `spec.secretRef`. */
  readonly credentials: boolean;
  /** The impersonator token: Secret `<cluster>-impersonator`, `spec.impersonatorSecretRef`. */
  readonly impersonator: boolean;
}

export const reportsAnything = (r: ReportedSecrets): boolean => r.credentials || r.impersonator;

/** Names of the credential objects of one cluster, in the member and in the control plane. */
export interface CredentialNames {
  /** `--cluster-namespace`, in both the member and the control plane. */
  readonly namespace: string;
  /** Member ServiceAccount (and its token Secret) behind `<cluster>`: `karmada-<cluster>`. */
  readonly credentialsServiceAccount: string;
  /** Member ServiceAccount (and its token Secret) behind `<cluster>-impersonator`. */
  readonly impersonatorServiceAccount: string;
  /** Member ClusterRole and ClusterRoleBinding of the credentials ServiceAccount. */
  readonly clusterRole: string;
  /** Control-plane Secret with `token` and `caBundle`. */
  readonly credentialsSecret: string;
  /** Control-plane Secret with `token`. */
  readonly impersonatorSecret: string;
}

export function credentialNames(cluster: string, namespace: string): CredentialNames {
  const [credentialsSecret, impersonatorSecret] = agentCredentialSecretsFor(cluster);
  return {
    namespace,
    credentialsServiceAccount: `karmada-${cluster}`,
    impersonatorServiceAccount: 'karmada-impersonator',
    clusterRole: `karmada-controller-manager:karmada-${cluster}`,
    credentialsSecret,
    impersonatorSecret,
  };
}

/** The Cluster's references to the reported secrets; a secret not reported has none (and an existing one is kept). */
export function secretRefs(
  reported: ReportedSecrets,
  names: CredentialNames,
): { readonly secretRef?: LocalSecretReference; readonly impersonatorSecretRef?: LocalSecretReference } {
  return {
    ...(reported.credentials
      ? { secretRef: { namespace: names.namespace, name: names.credentialsSecret } }
      : {}),
    ...(reported.impersonator
      ? { impersonatorSecretRef: { namespace: names.namespace, name: names.impersonatorSecret } }
      : {}),
  };
}
