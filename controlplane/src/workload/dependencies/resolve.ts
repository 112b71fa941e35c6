/**
 * A dependant's dependencies: from the kind's InterpretDependency scripts when a customization
 * has any, else from the built-in rules. Upstream's interpreter asks its sources in this order
 * and takes the first that handles the kind: customizations' scripts, interpreter webhooks
 * (not run here), the third-party customizations it ships, then the built-in native rules; so a
 * script replaces the built-in rules of its kind rather than adding to them. Then the references
 * are resolved to the objects the template caches hold: by name, or every object of the kind in
 * the namespace whose labels match the selector.
 */
import { matchesLabelSelector } from '@kf/api';
import type { DependentObjectReference, ResourceInterpreter } from '@kf/interpreter';
import { joinKey } from '@kf/kube';
import { runScript } from '../interpreter/script-condition.ts';
import { asKubeObject, type ResourceTemplate } from '../template.ts';
import { builtInDependencies } from './built-in.ts';

export type DependenciesOutcome =
  /** No script and no built-in rule for the kind (upstream: the hook is not enabled). */
  | { readonly kind: 'none' }
  | { readonly kind: 'failed'; readonly message: string }
  | {
      readonly kind: 'found';
      readonly references: readonly DependentObjectReference[];
      /** Whether a script gave them (the binding then shows the script's condition). */
      readonly scripted: boolean;
    };

export function dependenciesOf(
  t: ResourceTemplate,
  interpreter: ResourceInterpreter | undefined,
): DependenciesOutcome {
  const scripted = runScript(interpreter, (i) => i.getDependencies(asKubeObject(t)));
  if (scripted.kind === 'failed') return scripted;
  if (scripted.kind === 'succeeded') return { kind: 'found', references: scripted.value, scripted: true };
  const builtIn = builtInDependencies(t);
  return builtIn === undefined ? { kind: 'none' } : { kind: 'found', references: builtIn, scripted: false };
}

/** What the distributor reads dependency objects from (the template caches). */
export interface TemplateLookup {
  get(apiVersion: string, kind: string, key: string): ResourceTemplate | undefined;
  listOf(apiVersion: string, kind: string): readonly ResourceTemplate[];
}

/** The objects the references name that exist now, each once. */
export function resolveReferences(
  references: readonly DependentObjectReference[],
  templates: TemplateLookup,
): ResourceTemplate[] {
  const found = new Map<string, ResourceTemplate>();
  for (const ref of references) {
    for (const t of objectsOf(ref, templates)) {
      const m = t.metadata;
      found.set(`${t.apiVersion ?? ''}/${t.kind ?? ''}/${m.namespace ?? ''}/${m.name ?? ''}`, t);
    }
  }
  return [...found.values()];
}

/** The object a reference names, or those its selector matches in its namespace. */
function objectsOf(ref: DependentObjectReference, templates: TemplateLookup): readonly ResourceTemplate[] {
  if ((ref.name ?? '') !== '') {
    const t = templates.get(ref.apiVersion, ref.kind, joinKey(ref.namespace, ref.name ?? ''));
    return t === undefined ? [] : [t];
  }
  const selector = ref.labelSelector;
  if (selector === undefined) return [];
  return templates
    .listOf(ref.apiVersion, ref.kind)
    .filter(
      (t) =>
        (t.metadata.namespace ?? '') === (ref.namespace ?? '') &&
        matchesLabelSelector(t.metadata.labels ?? {}, selector),
    );
}
