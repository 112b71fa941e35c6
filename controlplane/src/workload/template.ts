/**
 * Resource templates: the user's objects (Deployments, ConfigMaps, …) in the control plane that
 * policies propagate. Read generically: only metadata, `spec` and `status` as plain JSON.
 */
import { isSameJson, type ObjectMeta } from '@kf/api';
import type { KubeObject } from '@kf/interpreter';

export interface ResourceTemplate {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec?: Readonly<Record<string, unknown>>;
  readonly status?: Readonly<Record<string, unknown>>;
}

/** What a binding or a template cache is keyed by: `<apiVersion>/<kind>`, e.g. `apps/v1/Deployment`. */
export function typeKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/** A plain-object view of `value`, or undefined when it is not one. */
export function recordOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Readonly<Record<string, unknown>>)
    : undefined;
}

/** The template as the resource interpreter takes objects (any JSON object with apiVersion and kind). */
export function asKubeObject(t: ResourceTemplate): KubeObject {
  return t as unknown as KubeObject;
}

/** Whether a template changed in more than its status and bookkeeping metadata. */
export function isMeaningfulChange(a: ResourceTemplate, b: ResourceTemplate): boolean {
  const strip = (t: ResourceTemplate): unknown => ({
    ...t,
    status: undefined,
    metadata: { ...t.metadata, resourceVersion: undefined, managedFields: undefined },
  });
  return !isSameJson(strip(a), strip(b));
}
