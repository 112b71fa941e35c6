/**
 * Whether and how a member is registered as a Cluster in the control plane: by its agent (Pull) or
 * by `controlplane join` (Push). The same rules of identity hold for both.
 */
import {
  clusterKind,
  jsonEqual,
  namespaces,
  syncModes,
  type Cluster,
  type ClusterSpec,
  type LocalSecretReference,
  type SyncMode,
} from '@kf/api';
import { without } from '../object-fields.ts';

/** What the agent knows about its member and was told by flags. */
export interface RegistrationInput {
  readonly name: string;
  /** Pull when the member's agent registers it (the default), Push when the control plane is to reach it. */
  readonly syncMode?: SyncMode;
  /** The member's kube-system namespace UID. */
  readonly id: string;
  /** `--cluster-api-endpoint`; written even when empty (the field is then cleared). */
  readonly apiEndpoint: string;
  /** `--proxy-server-address`, or the proxy-url of the member kubeconfig; cleared when empty. */
  readonly proxyURL: string;
  /** The member kubeconfig skips TLS verification (always written, like the API's default false). */
  readonly insecureSkipTLSVerification: boolean;
  /** Written only when non-empty; never cleared. */
  readonly provider: string;
  readonly region: string;
  readonly zones: readonly string[];
  /**
   * Set when `--report-secrets` reports the secret (namespace `--cluster-namespace`); an existing
   * reference is never cleared nor changed.
   */
  readonly secretRef?: LocalSecretReference;
  readonly impersonatorSecretRef?: LocalSecretReference;
}

export type RegistrationDecision =
  | { readonly kind: 'create'; readonly cluster: Cluster }
  | { readonly kind: 'update'; readonly cluster: Cluster }
  | { readonly kind: 'unchanged'; readonly cluster: Cluster }
  | { readonly kind: 'refuse'; readonly reason: string };

/**
 * Decides the registration:
 * - refuse a Push registration of a name that a Pull cluster holds: its agent reports it, and two
 *   writers of one status would fight;
 * - refuse when a reported secret would live outside `karmada-cluster`: the control plane's
 *   admission policy lets an agent write only karmada-cluster/<cluster> and
 *   karmada-cluster/<cluster>-impersonator, so the run would fail half-way, after writing to the
 *   member and to the Cluster;
 * - refuse when a Cluster of this name carries another non-empty `spec.id`, or another Cluster
 *   carries this member's id (the member is registered under another name);
 * - create when no Cluster of this name exists;
 * - else update only when the mutated spec differs from the stored one (status, metadata and
 *   fields the agent does not own, such as taints, are kept, and so is a secret reference already
 *   set: one set by an operator may point elsewhere, and the admission policy refuses a change).
 */
export function decideRegistration(
  existing: Cluster | undefined,
  others: readonly Cluster[],
  input: RegistrationInput,
): RegistrationDecision {
  const refused = refusal(existing, others, input);
  if (refused !== undefined) return { kind: 'refuse', reason: refused };
  const mode = input.syncMode ?? syncModes.pull;
  if (existing === undefined) {
    return {
      kind: 'create',
      cluster: {
        apiVersion: clusterKind.apiVersion,
        kind: clusterKind.kind,
        metadata: { name: input.name },
        spec: mutateSpec({ syncMode: mode }, input),
      },
    };
  }
  const spec = mutateSpec(existing.spec, input);
  if (jsonEqual(spec, existing.spec)) return { kind: 'unchanged', cluster: existing };
  return { kind: 'update', cluster: { ...existing, spec } };
}

/** Why the registration cannot go on (see decideRegistration), or undefined. */
function refusal(
  existing: Cluster | undefined,
  others: readonly Cluster[],
  input: RegistrationInput,
): string | undefined {
  const outside = [input.secretRef, input.impersonatorSecretRef].find(
    (ref) => ref !== undefined && ref.namespace !== namespaces.cluster,
  );
  if (outside !== undefined) {
    return (
      `--cluster-namespace=${outside.namespace} with --report-secrets: member agents may write ` +
      `credential Secrets only in ${namespaces.cluster} (admission policy ` +
      `karmada-failover-agent-own-objects); use --cluster-namespace=${namespaces.cluster} or --report-secrets=None`
    );
  }
  if (input.syncMode === syncModes.push && existing?.spec.syncMode === syncModes.pull) {
    return (
      `cluster ${input.name} is registered in Pull mode (its agent reports it); ` +
      'remove that agent and its Cluster first, or join under another name'
    );
  }
  const storedId = existing?.spec.id ?? '';
  if (storedId !== '' && storedId !== input.id) {
    return (
      `cluster ${input.name} is already registered with id ${storedId}, but this member's id ` +
      `(kube-system namespace UID) is ${input.id}; refusing to take it over`
    );
  }
  const twin = others.find((c) => c.metadata.name !== input.name && c.spec.id === input.id);
  if (twin !== undefined) {
    return `this member (id ${input.id}) is already registered as cluster ${twin.metadata.name ?? ''}`;
  }
  return undefined;
}

function mutateSpec(spec: ClusterSpec, input: RegistrationInput): ClusterSpec {
  const rest = without(spec, 'apiEndpoint', 'proxyURL', 'insecureSkipTLSVerification');
  return {
    ...rest,
    syncMode: input.syncMode ?? syncModes.pull,
    id: input.id,
    ...(input.apiEndpoint === '' ? {} : { apiEndpoint: input.apiEndpoint }),
    ...(input.proxyURL === '' ? {} : { proxyURL: input.proxyURL }),
    insecureSkipTLSVerification: input.insecureSkipTLSVerification,
    ...(input.provider === '' ? {} : { provider: input.provider }),
    ...(input.region === '' ? {} : { region: input.region }),
    ...(input.zones.length === 0 ? {} : { zones: [...input.zones] }),
    ...(spec.secretRef === undefined && input.secretRef !== undefined
      ? { secretRef: { ...input.secretRef } }
      : {}),
    ...(spec.impersonatorSecretRef === undefined && input.impersonatorSecretRef !== undefined
      ? { impersonatorSecretRef: { ...input.impersonatorSecretRef } }
      : {}),
  };
}
