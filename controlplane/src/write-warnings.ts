/**
 * Warning Events about failed writes. A Conflict does not get one: it says only that the object
 * changed since it was read (another controller, an agent or a user wrote it in between). The
 * reconcile throws and the runner retries it on fresh data, which nearly always succeeds; a
 * Warning for every such race would bury the failures someone has to look at.
 */
import { isConflict } from '@kf/kube';

/** Calls `warn` (which records the Warning Event) unless the write only lost a race. */
export function warnUnlessConflict(err: unknown, warn: () => void): void {
  if (!isConflict(err)) warn();
}
