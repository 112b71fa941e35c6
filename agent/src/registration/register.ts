/**
 * Registration, run by every replica before leader election (as upstream): reads the member's
 * identity, obtains the member credentials `--report-secrets` asks for, creates or updates its
 * Cluster in the control plane, makes sure the execution namespace `karmada-es-<cluster>` exists,
 * and applies the credential Secrets. Upstream leaves the namespace to the control plane's
 * cluster controller; this agent creates it when missing (and never changes or deletes it).
 */
import { executionNamespaceFor, labels, namespaces, type Cluster } from '@kf/api';
import { isAlreadyExists, isNotFound, type ResourceClient } from '@kf/kube';
import {
  controlPlaneSecrets,
  decideRegistration,
  reportsAnything,
  secretRefs,
  type CredentialNames,
  type MemberTokens,
  type Namespace,
  type RegistrationInput,
  type ReportedSecrets,
  type Secret,
} from '@kf/member';
import { retryWithBackoff, TerminalError, type BackoffPolicy, type Logger } from '@kf/runtime';
import { FORBIDDEN_RETRY_WINDOW_MS, registrationRetryable } from './registration-retry.ts';

/** Another member already owns this Cluster (or this member is registered under another name). */
export class RegistrationRefusedError extends Error {
  override readonly name = 'RegistrationRefusedError';
}

export interface RegistrationDeps {
  readonly clusters: ResourceClient<Cluster>;
  /** Namespaces of the control plane. */
  readonly karmadaNamespaces: ResourceClient<Namespace>;
  /** Namespaces of the member. */
  readonly memberNamespaces: ResourceClient<Namespace>;
  readonly input: Omit<RegistrationInput, 'id' | 'secretRef' | 'impersonatorSecretRef'>;
  /** `--report-secrets` and the names of what it creates (namespace: `--cluster-namespace`). */
  readonly reported: ReportedSecrets;
  readonly credentialNames: CredentialNames;
  /** The member side of the reported secrets: ensures its objects and waits for the tokens. */
  readonly memberTokens: (signal: AbortSignal) => Promise<MemberTokens>;
  /** Secrets of the control plane, written by server-side apply only (the agent never reads them). */
  readonly secrets: ResourceClient<Secret>;
  readonly fieldManager: string;
  readonly log: Logger;
  readonly signal: AbortSignal;
  /** Monotonic ms, for how long a row of 403s has lasted. */
  readonly monotonic: () => number;
}

/**
 * Retries of registration: 0.5 s doubling to a 2 s cap. An agent (re)started while the control
 * plane is away must be back within a few seconds of its API server returning: until it
 * registers it renews no Lease, and a restarted control plane gives each cluster only one grace
 * period from first sight. A 30 s cap left agents silent for 26 s after an outage. A failed
 * attempt against a dead server costs one refused connection, so polling every 2 s is cheap.
 */
const REGISTRATION_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 2_000, factor: 2, jitter: 0.2 };

/**
 * Registers the member, retrying transient failures (either API server unreachable) with
 * backoff until `signal` aborts. Rejects with {@link RegistrationRefusedError} when the name or
 * the id is taken by another member; any other non-retryable error rejects too (403 only once a row of them outlasted FORBIDDEN_RETRY_WINDOW_MS: a freshly started API server answers 403 until its authorizer is warm).
 */
export async function registerCluster(deps: RegistrationDeps): Promise<Cluster> {
  return retryWithBackoff(() => registerOnce(deps), {
    policy: REGISTRATION_BACKOFF,
    signal: deps.signal,
    isRetryable: registrationRetryable(
      FORBIDDEN_RETRY_WINDOW_MS,
      deps.monotonic,
      (err) => err instanceof RegistrationRefusedError,
    ),
    onRetry: ({ err, attempt, delayMs }) => {
      deps.log.warn({ err, attempt, delayMs }, 'registration failed; retrying');
    },
  });
}

async function registerOnce(deps: RegistrationDeps): Promise<Cluster> {
  const call = { signal: deps.signal };
  const kubeSystem = await deps.memberNamespaces.get('kube-system', call);
  const id = kubeSystem.metadata?.uid ?? '';
  if (id === '') throw new TerminalError('the member kube-system namespace has no uid');
  const all = (await deps.clusters.list(call)).items;
  const existing = all.find((c) => c.metadata.name === deps.input.name);
  const input = { ...deps.input, id, ...secretRefs(deps.reported, deps.credentialNames) };
  const decision = decideRegistration(existing, all, input);
  // Refusals come before any write, in the member too.
  if (decision.kind === 'refuse') throw new RegistrationRefusedError(decision.reason);
  const tokens = reportsAnything(deps.reported) ? await deps.memberTokens(deps.signal) : {};
  let cluster: Cluster;
  switch (decision.kind) {
    case 'create':
      cluster = await deps.clusters.create(decision.cluster, call);
      deps.log.info({ id }, 'cluster registered');
      break;
    case 'update':
      cluster = await deps.clusters.replace(decision.cluster, call);
      deps.log.info({ id }, 'cluster registration updated');
      break;
    case 'unchanged':
      cluster = decision.cluster;
      deps.log.info({ id }, 'cluster already registered');
      break;
  }
  // The heartbeat Lease lives in karmada-cluster; upstream creates it at registration too.
  await ensureNamespace(deps, namespaces.cluster);
  if (deps.credentialNames.namespace !== namespaces.cluster && reportsAnything(deps.reported)) {
    await ensureNamespace(deps, deps.credentialNames.namespace);
  }
  await ensureNamespace(deps, executionNamespaceFor(deps.input.name));
  await reportSecrets(deps, tokens, cluster);
  return cluster;
}

/**
 * Applies the credential Secrets, owned by the Cluster. Server-side apply creates them or brings
 * them up to date (upstream leaves a stale token in place); an unchanged Secret is not written.
 */
async function reportSecrets(deps: RegistrationDeps, tokens: MemberTokens, cluster: Cluster): Promise<void> {
  for (const secret of controlPlaneSecrets(deps.credentialNames, tokens, cluster)) {
    await deps.secrets.apply(secret, { fieldManager: deps.fieldManager, force: true, signal: deps.signal });
    deps.log.info(
      { secret: `${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}` },
      'credential secret reported',
    );
  }
}

/** Creates the namespace (labelled karmada.io/system) when missing; never changes an existing one. */
async function ensureNamespace(deps: RegistrationDeps, name: string): Promise<void> {
  try {
    await deps.karmadaNamespaces.get(name, { signal: deps.signal });
    return;
  } catch (err: unknown) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await deps.karmadaNamespaces.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [labels.system]: 'true' } } },
      { signal: deps.signal },
    );
    deps.log.info({ namespace: name }, 'namespace created');
  } catch (err: unknown) {
    if (!isAlreadyExists(err)) throw err;
  }
}
