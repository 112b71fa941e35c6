/**
 * The customizations and the VM together: what Karmada's configurable interpreter answers. Each
 * call finds the script for the object's apiVersion/kind (returning undefined when no
 * customization scripts that operation for it), runs it, and returns the typed result.
 */
import type { AggregatedStatusItem, Component, ResourceInterpreterCustomization } from '@kf/api';
import { type DependentObjectReference, mergeDependencies } from './dependencies.ts';
import type { JsonValue, KubeObject } from './json.ts';
import type { InterpreterOperation } from './operations.ts';
import { CustomizationRegistry, type ScriptSource } from './registry.ts';
import { type ReplicaResult, ScriptInterpreter } from './script-interpreter.ts';
import type { PoolStats, VmOptions } from './vm-pool.ts';

export async function createResourceInterpreter(
  customizations: readonly ResourceInterpreterCustomization[] = [],
  options: VmOptions = {},
): Promise<ResourceInterpreter> {
  return new ResourceInterpreter(
    new CustomizationRegistry(customizations),
    await ScriptInterpreter.create(options),
  );
}

export class ResourceInterpreter {
  readonly registry: CustomizationRegistry;
  private readonly scripts: ScriptInterpreter;

  constructor(registry: CustomizationRegistry, scripts: ScriptInterpreter) {
    this.registry = registry;
    this.scripts = scripts;
  }

  /** Replaces the customizations; scripts that did not change stay compiled. */
  update(customizations: readonly ResourceInterpreterCustomization[]): void {
    const change = this.registry.update(customizations);
    this.scripts.pool.forget(change.removed);
  }

  hookEnabled(apiVersion: string, kind: string, operation: InterpreterOperation): boolean {
    return this.registry.hookEnabled(apiVersion, kind, operation);
  }

  get stats(): PoolStats {
    return this.scripts.pool.stats;
  }

  interpretHealth(observed: KubeObject): boolean | undefined {
    const source = this.find(observed, 'InterpretHealth');
    return source === undefined ? undefined : this.scripts.interpretHealth(source, observed);
  }

  getReplicas(desired: KubeObject): ReplicaResult | undefined {
    const source = this.find(desired, 'InterpretReplica');
    return source === undefined ? undefined : this.scripts.getReplicas(source, desired);
  }

  reviseReplica(desired: KubeObject, replicas: number): KubeObject | undefined {
    const source = this.find(desired, 'ReviseReplica');
    return source === undefined ? undefined : this.scripts.reviseReplica(source, desired, replicas);
  }

  retain(desired: KubeObject, observed: KubeObject): KubeObject | undefined {
    const source = this.find(desired, 'Retain');
    return source === undefined ? undefined : this.scripts.retain(source, desired, observed);
  }

  aggregateStatus(
    desired: KubeObject,
    items: readonly AggregatedStatusItem[] | undefined,
  ): KubeObject | undefined {
    const source = this.find(desired, 'AggregateStatus');
    return source === undefined ? undefined : this.scripts.aggregateStatus(source, desired, items);
  }

  reflectStatus(observed: KubeObject): JsonValue | undefined {
    const source = this.find(observed, 'InterpretStatus');
    return source === undefined ? undefined : this.scripts.reflectStatus(source, observed);
  }

  /** The references of every dependency script for the kind, merged and sorted. */
  getDependencies(desired: KubeObject): DependentObjectReference[] | undefined {
    const sources = this.registry.dependencyScripts(desired.apiVersion ?? '', desired.kind ?? '');
    if (sources.length === 0) return undefined;
    return mergeDependencies(sources.map((source) => this.scripts.getDependencies(source, desired)));
  }

  getComponents(desired: KubeObject): Component[] | undefined {
    const source = this.find(desired, 'InterpretComponent');
    return source === undefined ? undefined : this.scripts.getComponents(source, desired);
  }

  close(): void {
    this.scripts.pool.close();
  }

  private find(object: KubeObject, operation: InterpreterOperation): ScriptSource | undefined {
    return this.registry.lookup(object.apiVersion ?? '', object.kind ?? '', operation);
  }
}
