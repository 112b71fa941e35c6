/**
 * Values of the project's extension annotations. Annotations carry what Karmada's own CRDs have no
 * field for, and an annotation is free text: each reader takes what it can use and ignores (or
 * reports) the rest.
 */

/** A whole number of seconds (`"15"`, `" 15 "`); undefined for anything else (`"15s"`, `"-1"`, `""`). */
export function wholeSeconds(value: string | undefined): number | undefined {
  const text = value?.trim();
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/** An annotation that holds a number of seconds within bounds: absent, usable, or what is wrong. */
export type SecondsSetting =
  | { readonly kind: 'off' }
  | { readonly kind: 'on'; readonly seconds: number }
  | { readonly kind: 'invalid'; readonly problem: string };

/** Reads annotation `key` as whole seconds from `min` to `max`; the problem names the annotation. */
export function readSecondsAnnotation(
  objectAnnotations: Readonly<Record<string, string>> | undefined,
  key: string,
  range: { readonly min: number; readonly max: number },
): SecondsSetting {
  const raw = objectAnnotations?.[key];
  if (raw === undefined) return { kind: 'off' };
  const seconds = wholeSeconds(raw);
  if (seconds === undefined) {
    return { kind: 'invalid', problem: `${key} must be a whole number of seconds, got "${raw}"` };
  }
  if (seconds < range.min || seconds > range.max) {
    return {
      kind: 'invalid',
      problem: `${key} must be between ${String(range.min)} and ${String(range.max)} seconds, got ${raw.trim()}`,
    };
  }
  return { kind: 'on', seconds };
}
