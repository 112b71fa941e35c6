/**
 * The fence timeout of `failover.karmada-failover.io/fence-after-seconds`, read the same way by the
 * control plane (on policies, bindings and Works) and by the member agent (on Works).
 */
import { wholeSeconds } from './annotation-values.ts';
import { annotations } from './well-known.ts';

/** Below this a fence would fire on blips the heartbeat rides out (it retries within seconds). */
export const MIN_FENCE_SECONDS = 5;
/** One day: a longer fence is no fence. */
export const MAX_FENCE_SECONDS = 24 * 3600;

export type FenceSetting =
  | { readonly kind: 'off' }
  | { readonly kind: 'on'; readonly seconds: number }
  | { readonly kind: 'invalid'; readonly problem: string };

/** The fence timeout an object's annotations give. */
export function readFenceSetting(
  objectAnnotations: Readonly<Record<string, string>> | undefined,
): FenceSetting {
  const raw = objectAnnotations?.[annotations.fenceAfterSeconds];
  if (raw === undefined) return { kind: 'off' };
  const seconds = wholeSeconds(raw);
  if (seconds === undefined) {
    return {
      kind: 'invalid',
      problem: `${annotations.fenceAfterSeconds} must be a whole number of seconds, got "${raw}"`,
    };
  }
  if (seconds < MIN_FENCE_SECONDS || seconds > MAX_FENCE_SECONDS) {
    return {
      kind: 'invalid',
      problem: `${annotations.fenceAfterSeconds} must be between ${String(MIN_FENCE_SECONDS)} and ${String(MAX_FENCE_SECONDS)} seconds, got ${raw.trim()}`,
    };
  }
  return { kind: 'on', seconds };
}
