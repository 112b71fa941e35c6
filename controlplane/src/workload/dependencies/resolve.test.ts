import { describe, expect, it } from 'vitest';
import { InterpreterScriptError, type ResourceInterpreter } from '@kf/interpreter';
import type { ResourceTemplate } from '../template.ts';
import { dependenciesOf, resolveReferences, type TemplateLookup } from './resolve.ts';

const deployment: ResourceTemplate = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { template: { spec: { volumes: [{ configMap: { name: 'builtin' } }] } } },
};

function interpreterWith(getDependencies: ResourceInterpreter['getDependencies']): ResourceInterpreter {
  return { getDependencies } as unknown as ResourceInterpreter;
}

describe('dependenciesOf', () => {
  it("uses the kind's scripts in place of the built-in rules", () => {
    const scripted = [{ apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 's' }];
    expect(
      dependenciesOf(
        deployment,
        interpreterWith(() => scripted),
      ),
    ).toEqual({
      kind: 'found',
      references: scripted,
      scripted: true,
    });
  });

  it('falls back to the built-in rules without a script, and to none for kinds without either', () => {
    const none = interpreterWith(() => undefined);
    expect(dependenciesOf(deployment, none)).toEqual({
      kind: 'found',
      references: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'builtin' }],
      scripted: false,
    });
    const crd: ResourceTemplate = { apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' } };
    expect(dependenciesOf(crd, none)).toEqual({ kind: 'none' });
    expect(dependenciesOf(crd, undefined)).toEqual({ kind: 'none' });
  });

  it('reports a failing script', () => {
    const failing = interpreterWith(() => {
      throw new InterpreterScriptError('InterpretDependency', 'kruise', 'runtime', 'boom');
    });
    expect(dependenciesOf(deployment, failing)).toEqual({
      kind: 'failed',
      message: 'InterpretDependency script of ResourceInterpreterCustomization kruise: boom',
    });
  });
});

describe('resolveReferences', () => {
  const objects: ResourceTemplate[] = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'shop', labels: { app: 'web' } },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'shop', labels: { app: 'api' } },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'other', labels: { app: 'web' } },
    },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', namespace: 'shop', labels: { app: 'web' } } },
  ];
  const lookup: TemplateLookup = {
    get: (apiVersion, kind, key) =>
      objects.find(
        (o) =>
          o.apiVersion === apiVersion &&
          o.kind === kind &&
          `${o.metadata.namespace}/${o.metadata.name}` === key,
      ),
    listOf: (apiVersion, kind) => objects.filter((o) => o.apiVersion === apiVersion && o.kind === kind),
  };

  it('finds named objects that exist and the objects of the namespace a selector matches, once each', () => {
    const found = resolveReferences(
      [
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a' },
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'missing' },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'shop',
          labelSelector: { matchLabels: { app: 'web' } },
        },
      ],
      lookup,
    );
    expect(found).toEqual([objects[0]]);
  });
});
