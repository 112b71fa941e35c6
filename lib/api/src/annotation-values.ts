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
