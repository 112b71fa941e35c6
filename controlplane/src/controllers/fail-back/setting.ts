/**
 * The fail-back opt-in: annotation `failover.karmada-failover.io/fail-back-after-seconds` on a
 * PropagationPolicy or ClusterPropagationPolicy, copied by the resource detector onto its bindings.
 * Its value is the stabilization window: how long every cluster the workload ran on before a
 * failover must have been steady before the workload goes back. An annotation rather than a spec
 * field, so that the policy stays valid under Karmada's own CRDs, which do not know it.
 */
import { annotations, readSecondsAnnotation } from '@kf/api';

/** One week: a longer window is a mistake more often than a wish. */
export const MAX_FAIL_BACK_WINDOW_SECONDS = 7 * 24 * 3600;

export type FailBackSetting =
  | { readonly kind: 'off' }
  | { readonly kind: 'on'; readonly windowMs: number }
  | { readonly kind: 'invalid'; readonly problem: string };

/** The setting on a policy's or binding's annotations. */
export function readFailBackSetting(
  objectAnnotations: Readonly<Record<string, string>> | undefined,
): FailBackSetting {
  const setting = readSecondsAnnotation(objectAnnotations, annotations.failBackAfterSeconds, {
    min: 1,
    max: MAX_FAIL_BACK_WINDOW_SECONDS,
  });
  return setting.kind === 'on' ? { kind: 'on', windowMs: setting.seconds * 1000 } : setting;
}
