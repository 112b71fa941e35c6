import { describe, expect, it } from 'vitest';
import { CustomizationRegistry } from './registry.ts';
import { customization } from './testing/sources.ts';

const rollout = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout' };
const cloneSet = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' };

describe('CustomizationRegistry', () => {
  it('finds the script for an operation on a kind, and nothing for others', () => {
    const registry = new CustomizationRegistry([customization('rollout', rollout, { InterpretHealth: 'h' })]);
    expect(registry.lookup('argoproj.io/v1alpha1', 'Rollout', 'InterpretHealth')).toMatchObject({
      customization: 'rollout',
      operation: 'InterpretHealth',
      script: 'h',
    });
    expect(registry.lookup('argoproj.io/v1alpha1', 'Rollout', 'InterpretReplica')).toBeUndefined();
    expect(registry.lookup('argoproj.io/v1beta1', 'Rollout', 'InterpretHealth')).toBeUndefined();
    expect(registry.hookEnabled('argoproj.io/v1alpha1', 'Rollout', 'InterpretHealth')).toBe(true);
    expect(registry.hookEnabled('apps/v1', 'Deployment', 'InterpretHealth')).toBe(false);
  });

  it('lets the first customization by name with a non-empty script win each operation', () => {
    const registry = new CustomizationRegistry([
      customization('c-last', rollout, { InterpretHealth: 'c', InterpretReplica: 'c', Retain: 'c' }),
      customization('a-first', rollout, { InterpretHealth: 'a', InterpretReplica: '' }),
      customization('b-middle', rollout, { InterpretReplica: 'b' }),
    ]);
    const winner = (operation: 'InterpretHealth' | 'InterpretReplica' | 'Retain'): string | undefined =>
      registry.lookup(rollout.apiVersion, rollout.kind, operation)?.customization;
    expect(winner('InterpretHealth')).toBe('a-first');
    expect(winner('InterpretReplica')).toBe('b-middle');
    expect(winner('Retain')).toBe('c-last');
  });

  it('keeps every dependency script, in name order', () => {
    const registry = new CustomizationRegistry([
      customization('z', rollout, { InterpretDependency: 'z' }),
      customization('a', rollout, { InterpretDependency: 'a' }),
      customization('m', rollout, { InterpretDependency: '' }),
    ]);
    expect(registry.dependencyScripts(rollout.apiVersion, rollout.kind).map((s) => s.script)).toEqual([
      'a',
      'z',
    ]);
    expect(registry.lookup(rollout.apiVersion, rollout.kind, 'InterpretDependency')?.script).toBe('a');
    expect(registry.dependencyScripts(cloneSet.apiVersion, cloneSet.kind)).toEqual([]);
  });

  it('keeps targets apart', () => {
    const registry = new CustomizationRegistry([
      customization('one', rollout, { InterpretHealth: 'rollout' }),
      customization('two', cloneSet, { InterpretHealth: 'cloneset' }),
    ]);
    expect(registry.lookup(cloneSet.apiVersion, cloneSet.kind, 'InterpretHealth')?.script).toBe('cloneset');
    expect(registry.all()).toHaveLength(2);
  });

  it('keeps unchanged scripts across an update and reports the ones that went', () => {
    const registry = new CustomizationRegistry([
      customization('kept', rollout, { InterpretHealth: 'h', Retain: 'r' }, '1'),
      customization('changed', cloneSet, { InterpretHealth: 'old' }, '1'),
      customization('deleted', cloneSet, { Retain: 'x' }, '1'),
    ]);
    const kept = registry.lookup(rollout.apiVersion, rollout.kind, 'InterpretHealth');
    const change = registry.update([
      customization('kept', rollout, { InterpretHealth: 'h', Retain: 'r' }, '1'),
      customization('changed', cloneSet, { InterpretHealth: 'new' }, '2'),
      customization('added', cloneSet, { InterpretStatus: 's' }),
    ]);
    expect(registry.lookup(rollout.apiVersion, rollout.kind, 'InterpretHealth')).toBe(kept);
    expect(change.removed.map((s) => `${s.customization}/${s.operation}`).sort()).toEqual([
      'changed/InterpretHealth',
      'deleted/Retain',
    ]);
    expect(change.added.map((s) => `${s.customization}/${s.operation}`).sort()).toEqual([
      'added/InterpretStatus',
      'changed/InterpretHealth',
    ]);
    expect(registry.lookup(cloneSet.apiVersion, cloneSet.kind, 'Retain')).toBeUndefined();
  });

  it('tells scripts without a resourceVersion apart by their text', () => {
    const registry = new CustomizationRegistry([customization('file', rollout, { InterpretHealth: 'v1' })]);
    expect(registry.update([customization('file', rollout, { InterpretHealth: 'v1' })]).removed).toEqual([]);
    expect(registry.update([customization('file', rollout, { InterpretHealth: 'v2' })]).removed).toHaveLength(
      1,
    );
  });
});
