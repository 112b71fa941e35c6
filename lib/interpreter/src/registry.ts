/**
 * Which script handles which operation for which kind, from the ResourceInterpreterCustomization
 * objects, with Karmada's precedence: customizations are taken in order of name, and for each
 * operation of a target kind the first one with a non-empty script wins. InterpretDependency is the
 * exception: every customization's dependency script runs, and their references are merged.
 *
 * A script is identified by its customization, operation and resourceVersion (by its text when the
 * object has no resourceVersion, e.g. one read from a file), so an update keeps the compiled form
 * of every script that did not change and tells which ones went away.
 */
import type { ResourceInterpreterCustomization } from '@kf/api';
import { type InterpreterOperation, interpreterOperations, operationRules } from './operations.ts';

export interface ScriptSource {
  readonly operation: InterpreterOperation;
  readonly customization: string;
  readonly resourceVersion: string | undefined;
  readonly script: string;
  readonly key: string;
}

interface TargetScripts {
  readonly first: Map<InterpreterOperation, ScriptSource>;
  readonly dependencies: ScriptSource[];
}

export interface RegistryChange {
  /** Scripts no customization holds any more (or holds in another version). */
  readonly removed: readonly ScriptSource[];
  readonly added: readonly ScriptSource[];
}

export class CustomizationRegistry {
  private targets = new Map<string, TargetScripts>();
  private sources = new Map<string, ScriptSource>();

  constructor(customizations: readonly ResourceInterpreterCustomization[] = []) {
    this.update(customizations);
  }

  /** Replaces the whole set of customizations (Karmada reloads the full list on every change). */
  update(customizations: readonly ResourceInterpreterCustomization[]): RegistryChange {
    const previous = this.sources;
    const sources = new Map<string, ScriptSource>();
    const targets = new Map<string, TargetScripts>();
    const ordered = [...customizations].sort((a, b) =>
      compareNames(a.metadata.name ?? '', b.metadata.name ?? ''),
    );
    for (const customization of ordered) {
      const target = targetKey(customization.spec.target.apiVersion, customization.spec.target.kind);
      let scripts = targets.get(target);
      if (scripts === undefined) {
        scripts = { first: new Map(), dependencies: [] };
        targets.set(target, scripts);
      }
      for (const source of scriptsOf(customization)) {
        const kept = previous.get(source.key) ?? sources.get(source.key) ?? source;
        sources.set(kept.key, kept);
        if (kept.operation === 'InterpretDependency') scripts.dependencies.push(kept);
        else if (!scripts.first.has(kept.operation)) scripts.first.set(kept.operation, kept);
      }
    }
    this.targets = targets;
    this.sources = sources;
    return {
      removed: [...previous.values()].filter((s) => !sources.has(s.key)),
      added: [...sources.values()].filter((s) => !previous.has(s.key)),
    };
  }

  /** The script for `operation` on objects of apiVersion/kind; the first one for InterpretDependency. */
  lookup(apiVersion: string, kind: string, operation: InterpreterOperation): ScriptSource | undefined {
    const scripts = this.targets.get(targetKey(apiVersion, kind));
    if (operation === 'InterpretDependency') return scripts?.dependencies[0];
    return scripts?.first.get(operation);
  }

  /** Every dependency script for apiVersion/kind, in customization name order. */
  dependencyScripts(apiVersion: string, kind: string): readonly ScriptSource[] {
    return this.targets.get(targetKey(apiVersion, kind))?.dependencies ?? [];
  }

  hookEnabled(apiVersion: string, kind: string, operation: InterpreterOperation): boolean {
    return this.lookup(apiVersion, kind, operation) !== undefined;
  }

  /** Every script some customization holds now. */
  all(): readonly ScriptSource[] {
    return [...this.sources.values()];
  }
}

function scriptsOf(customization: ResourceInterpreterCustomization): ScriptSource[] {
  const name = customization.metadata.name ?? '';
  const resourceVersion = nonEmpty(customization.metadata.resourceVersion);
  const sources: ScriptSource[] = [];
  for (const operation of interpreterOperations) {
    const script = customization.spec.customizations[operationRules[operation].field]?.luaScript ?? '';
    if (script === '') continue;
    const version = resourceVersion === undefined ? `text:${script}` : `rv:${resourceVersion}`;
    sources.push({
      operation,
      customization: name,
      resourceVersion,
      script,
      key: `${name}\u0000${operation}\u0000${version}`,
    });
  }
  return sources;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : text;
}

function targetKey(apiVersion: string, kind: string): string {
  return `${apiVersion}\u0000${kind}`;
}

/** Go sorts strings by bytes; for Kubernetes names, which are ASCII, code-unit order is the same. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
