/**
 * The tolerations the taint manager honours: those of the placement the scheduler last applied
 * (annotation `policy.karmada.io/applied-placement`), not `spec.placement`, as upstream, so a
 * toleration change only counts once the scheduler has acted on it.
 */
import { annotations, type Placement, type Toleration } from '@kf/api';

export type AppliedTolerations =
  | { readonly ok: true; readonly tolerations: readonly Toleration[] }
  /** Upstream retries these forever without evicting; `problem` says what is wrong. */
  | { readonly ok: false; readonly problem: string };

/** Reads `clusterTolerations` from a binding's applied-placement annotation. */
export function readAppliedTolerations(
  objectAnnotations: Readonly<Record<string, string>> | undefined,
): AppliedTolerations {
  const raw = objectAnnotations?.[annotations.appliedPlacement];
  if (raw === undefined || raw === '') {
    return { ok: false, problem: `annotation ${annotations.appliedPlacement} is missing` };
  }
  let placement: unknown;
  try {
    placement = JSON.parse(raw);
  } catch {
    return { ok: false, problem: `annotation ${annotations.appliedPlacement} is not valid JSON` };
  }
  if (typeof placement !== 'object' || placement === null || Array.isArray(placement)) {
    return { ok: false, problem: `annotation ${annotations.appliedPlacement} is not a placement object` };
  }
  const tolerations = (placement as Placement).clusterTolerations ?? [];
  if (!Array.isArray(tolerations)) {
    return { ok: false, problem: 'clusterTolerations of the applied placement is not a list' };
  }
  return { ok: true, tolerations };
}
