/**
 * What is applied over an existing member object whose kind has a Retain script: the script's
 * `Retain(desired, observed)`, which keeps fields the member owns (set there by its controllers or
 * users), as upstream's object watcher runs it before each update. Server-side apply already keeps
 * the fields the agent never sets; a Retain script is for those it does set and must not take
 * back. The result is cleaned as the manifest was (server fields dropped, Karmada's marks put back)
 * and must still be the same object.
 */
import type { MemberInterpreter } from '../../interpreter/customizations.ts';
import { desiredObject, objectName, type MemberObject, type WorkRef } from './manifest-plan.ts';

/** A Retain script failed, or returned another object: that manifest is not applied. */
export class RetainFailedError extends Error {
  override readonly name = 'RetainFailedError';
}

function identity(o: MemberObject): string {
  return `${o.apiVersion ?? ''} ${o.kind ?? ''} ${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

function describe(o: MemberObject): string {
  return `${o.kind ?? 'object'} ${objectName(o)}`;
}

/**
 * The object to apply: `desired` itself when the object does not exist yet or no script retains
 * anything for its kind, else the script's result. Throws {@link RetainFailedError}.
 */
export function retainedObject(
  desired: MemberObject,
  observed: MemberObject | undefined,
  target: { readonly work: WorkRef; readonly namespaced: boolean },
  scripts: MemberInterpreter | undefined,
): MemberObject {
  if (observed === undefined || scripts === undefined) return desired;
  let retained: MemberObject | undefined;
  try {
    retained = scripts.retain(desired, observed);
  } catch (err: unknown) {
    const why = err instanceof Error ? err.message : String(err);
    throw new RetainFailedError(`cannot retain the member's fields of ${describe(desired)}: ${why}`);
  }
  if (retained === undefined) return desired;
  const cleaned = desiredObject(retained, target.work, target.namespaced);
  if (identity(cleaned) !== identity(desired)) {
    throw new RetainFailedError(
      `cannot retain the member's fields of ${describe(desired)}: the Retain script returned ${identity(cleaned)}, not the same object`,
    );
  }
  return cleaned;
}
