/**
 * The control-plane writes of a registration, the same for a Pull agent registering its member
 * and for a Push join: the Cluster as the registration decided, the namespaces it needs, and the
 * credential Secrets (owned by the Cluster).
 */
import { labels, type Cluster } from '@kf/api';
import { isAlreadyExists, isNotFound, type ResourceClient } from '@kf/kube';
import type { Logger } from '@kf/runtime';
import type { Namespace } from '../member/namespace.ts';
import type { CredentialNames } from './credential-names.ts';
import { controlPlaneSecrets, type MemberTokens, type Secret } from './credentials-plan.ts';
import type { RegistrationDecision } from './registration-plan.ts';

export interface WriteOptions {
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/** Creates or updates the Cluster as decided (a refusal never gets here); returns it as stored. */
export async function writeCluster(
  clusters: ResourceClient<Cluster>,
  decision: Exclude<RegistrationDecision, { kind: 'refuse' }>,
  opts: WriteOptions & { readonly id: string },
): Promise<Cluster> {
  const call = { signal: opts.signal };
  switch (decision.kind) {
    case 'create': {
      const cluster = await clusters.create(decision.cluster, call);
      opts.log.info({ id: opts.id }, 'cluster registered');
      return cluster;
    }
    case 'update': {
      const cluster = await clusters.replace(decision.cluster, call);
      opts.log.info({ id: opts.id }, 'cluster registration updated');
      return cluster;
    }
    case 'unchanged':
      opts.log.info({ id: opts.id }, 'cluster already registered');
      return decision.cluster;
  }
}

/** Creates the namespace (labelled karmada.io/system) when missing; never changes an existing one. */
export async function ensureNamespace(
  namespaces: ResourceClient<Namespace>,
  name: string,
  opts: WriteOptions,
): Promise<void> {
  try {
    await namespaces.get(name, { signal: opts.signal });
    return;
  } catch (err: unknown) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await namespaces.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [labels.system]: 'true' } } },
      { signal: opts.signal },
    );
    opts.log.info({ namespace: name }, 'namespace created');
  } catch (err: unknown) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/**
 * Applies the credential Secrets, owned by the Cluster. Server-side apply creates them or brings
 * them up to date (upstream leaves a stale token in place); an unchanged Secret is not written.
 */
export async function applyCredentialSecrets(
  secrets: ResourceClient<Secret>,
  credentials: { readonly names: CredentialNames; readonly tokens: MemberTokens; readonly owner: Cluster },
  opts: WriteOptions & { readonly fieldManager: string },
): Promise<void> {
  for (const secret of controlPlaneSecrets(credentials.names, credentials.tokens, credentials.owner)) {
    await secrets.apply(secret, { fieldManager: opts.fieldManager, force: true, signal: opts.signal });
    opts.log.info(
      { secret: `${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}` },
      'credential secret reported',
    );
  }
}
