/**
 * Which dependant bindings a template change concerns, kept by the distributor so that a change
 * costs no scan of every binding: per namespace, each binding that propagates its dependencies
 * and the dependency types (`<apiVersion>/<kind>`) it named on its last pass. A template event
 * queues the dependants of its namespace that named its type (a dependency created, changed,
 * relabelled for a label selector, or deleted) and the dependant whose own template it is (its
 * dependencies may have changed). A dependant not looked at yet matches every type.
 */
import { joinKey } from '@kf/kube';
import { typeKey, type ResourceTemplate } from '../template.ts';
import { bindingNameFor } from '../../names.ts';

export class DependantIndex {
  /** namespace → dependant binding name → the types it named (undefined: not known yet). */
  private readonly byNamespace = new Map<string, Map<string, ReadonlySet<string> | undefined>>();

  /** Records `name` (in `namespace`) as a dependant naming `types` (undefined: any type). */
  track(namespace: string, name: string, types: ReadonlySet<string> | undefined): void {
    let names = this.byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.byNamespace.set(namespace, names);
    }
    names.set(name, types);
  }

  forget(namespace: string, name: string): void {
    const names = this.byNamespace.get(namespace);
    names?.delete(name);
    if (names?.size === 0) this.byNamespace.delete(namespace);
  }

  /** The dependant binding keys a change of `t` may concern. */
  dependantsOf(t: ResourceTemplate): string[] {
    const namespace = t.metadata.namespace ?? '';
    const names = this.byNamespace.get(namespace);
    if (names === undefined) return [];
    const type = typeKey(t.apiVersion ?? '', t.kind ?? '');
    const own = bindingNameFor(t.kind ?? '', t.metadata.name ?? '');
    const keys: string[] = [];
    for (const [name, types] of names) {
      if (name === own || types === undefined || types.has(type)) keys.push(joinKey(namespace, name));
    }
    return keys;
  }
}
