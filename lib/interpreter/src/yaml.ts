/** ResourceInterpreterCustomization objects from a YAML stream, as Karmada ships them. */
import type { ResourceInterpreterCustomization } from '@kf/api';
import { CORE_SCHEMA, loadAll } from 'js-yaml';

/**
 * Every ResourceInterpreterCustomization document of `text`; other documents are skipped. The
 * YAML core schema keeps unquoted timestamps as strings, as Kubernetes' YAML reader does.
 */
export function parseCustomizations(text: string): ResourceInterpreterCustomization[] {
  return loadAll(text, { schema: CORE_SCHEMA }).filter(
    (doc): doc is ResourceInterpreterCustomization =>
      typeof doc === 'object' &&
      doc !== null &&
      (doc as { kind?: unknown }).kind === 'ResourceInterpreterCustomization',
  );
}
