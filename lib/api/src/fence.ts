/**
 * The fence timeout of `failover.karmada-failover.io/fence-after-seconds`, read the same way by the
 * control plane (on policies, bindings and Works) and by the member agent (on Works).
 */
import { readSecondsAnnotation, type SecondsSetting } from './annotation-values.ts';
import { annotations } from './well-known.ts';

/** Below this a fence would fire on blips the heartbeat rides out (it retries within seconds). */
export const MIN_FENCE_SECONDS = 5;
/** One day: a longer fence is no fence. */
export const MAX_FENCE_SECONDS = 24 * 3600;

export type FenceSetting = SecondsSetting;

/** The fence timeout an object's annotations give. */
export function readFenceSetting(
  objectAnnotations: Readonly<Record<string, string>> | undefined,
): FenceSetting {
  return readSecondsAnnotation(objectAnnotations, annotations.fenceAfterSeconds, {
    min: MIN_FENCE_SECONDS,
    max: MAX_FENCE_SECONDS,
  });
}
