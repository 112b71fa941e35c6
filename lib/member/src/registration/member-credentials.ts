/**
 * The member side of `--report-secrets`: makes sure the namespace, ServiceAccounts and the
 * credentials ClusterRole and binding exist (created when missing, never changed, as upstream),
 * then waits for the token Secret of each ServiceAccount, creating it when missing, until the
 * member's token controller has filled it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import type { PolicyRule } from '@kf/api';
import { KubeError, ResourceClient, isAlreadyExists } from '@kf/kube';
import type { Logger } from '@kf/runtime';
import {
  SECRET_RESOURCE,
  filledToken,
  memberCredentialSteps,
  tokenSecret,
  type EnsureStep,
  type MemberObject,
  type MemberToken,
  type MemberTokens,
  type Secret,
} from './credentials-plan.ts';
import type { CredentialNames, ReportedSecrets } from './credential-names.ts';

/** Upstream polls the token Secret every second for up to 30 s. */
export const TOKEN_POLL_MS = 1_000;
export const TOKEN_WAIT_MS = 30_000;

export interface MemberCredentialsDeps {
  readonly member: KubeConfig;
  readonly names: CredentialNames;
  readonly reported: ReportedSecrets;
  /** The credentials ClusterRole's rules (default: every verb on every resource, as an agent reports them). */
  readonly rules?: readonly PolicyRule[];
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly tokenWaitMs?: number;
}

/** Ensures the member objects and returns the tokens of the reported ServiceAccounts. */
export async function ensureMemberCredentials(deps: MemberCredentialsDeps): Promise<MemberTokens> {
  for (const step of memberCredentialSteps(deps.names, deps.reported, deps.rules)) await ensure(deps, step);
  const secrets = new ResourceClient<Secret>(deps.member, SECRET_RESOURCE);
  const { names, reported } = deps;
  return {
    ...(reported.impersonator
      ? { impersonator: await waitForToken(deps, secrets, names.impersonatorServiceAccount) }
      : {}),
    ...(reported.credentials
      ? { credentials: await waitForToken(deps, secrets, names.credentialsServiceAccount) }
      : {}),
  };
}

/** Creates the object when missing; an existing one is left as it is. */
async function ensure(deps: MemberCredentialsDeps, step: EnsureStep): Promise<void> {
  const client = new ResourceClient<MemberObject>(deps.member, step.resource);
  const { name = '', namespace } = step.object.metadata;
  const key = namespace === undefined ? name : `${namespace}/${name}`;
  if ((await client.find(key, { signal: deps.signal })) !== undefined) return;
  try {
    await client.create(step.object, { signal: deps.signal });
    deps.log.info({ kind: step.resource.kind, name: key }, 'member credential object created');
  } catch (err: unknown) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/**
 * Polls the ServiceAccount's token Secret (same name, same namespace) until it holds a token,
 * creating it when missing. Rejects with a retryable Timeout when the token controller does not
 * fill it in time (a member whose kube-controller-manager runs without a service-account key).
 */
async function waitForToken(
  deps: MemberCredentialsDeps,
  secrets: ResourceClient<Secret>,
  serviceAccount: string,
): Promise<MemberToken> {
  const key = `${deps.names.namespace}/${serviceAccount}`;
  const deadline = Date.now() + (deps.tokenWaitMs ?? TOKEN_WAIT_MS);
  for (;;) {
    const secret = await secrets.find(key, { signal: deps.signal });
    const token = filledToken(secret);
    if (token !== undefined) return token;
    if (secret === undefined) {
      await secrets.create(tokenSecret(serviceAccount, deps.names.namespace), { signal: deps.signal }).then(
        () => {
          deps.log.info({ secret: key }, 'member token secret created');
        },
        (err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        },
      );
    }
    if (Date.now() >= deadline) {
      throw new KubeError(
        'Timeout',
        `the token of member secret ${key} was not filled within ${Math.round((deps.tokenWaitMs ?? TOKEN_WAIT_MS) / 1000)}s ` +
          '(is the service-account token controller of kube-controller-manager running?)',
      );
    }
    await sleep(TOKEN_POLL_MS, undefined, { signal: deps.signal });
  }
}
