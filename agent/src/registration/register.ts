/**
 * Registration, run by every replica before leader election (as upstream): reads the member's
 * identity, obtains the member credentials `--report-secrets` asks for, creates or updates its
 * Cluster in the control plane, makes sure the execution namespace `karmada-es-<cluster>` exists,
 * and applies the credential Secrets. Upstream leaves the namespace to the control plane's
 * cluster controller; this agent creates it when missing (and never changes or deletes it).
 */
import { executionNamespaceFor, namespaces, type Cluster } from '@kf/api';
import type { ResourceClient } from '@kf/kube';
import {
  applyCredentialSecrets,
  decideRegistration,
  ensureNamespace,
  reportsAnything,
  secretRefs,
  type CredentialNames,
  type MemberTokens,
  type Namespace,
  type RegistrationInput,
  type ReportedSecrets,
  type Secret,
  writeCluster,
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
  const writes = { signal: deps.signal, log: deps.log };
  const cluster = await writeCluster(deps.clusters, decision, { ...writes, id });
  // The heartbeat Lease lives in karmada-cluster; upstream creates it at registration too.
  await ensureNamespace(deps.karmadaNamespaces, namespaces.cluster, writes);
  if (deps.credentialNames.namespace !== namespaces.cluster && reportsAnything(deps.reported)) {
    await ensureNamespace(deps.karmadaNamespaces, deps.credentialNames.namespace, writes);
  }
  await ensureNamespace(deps.karmadaNamespaces, executionNamespaceFor(deps.input.name), writes);
  await applyCredentialSecrets(
    deps.secrets,
    { names: deps.credentialNames, tokens, owner: cluster },
    { ...writes, fieldManager: deps.fieldManager },
  );
  return cluster;
}
