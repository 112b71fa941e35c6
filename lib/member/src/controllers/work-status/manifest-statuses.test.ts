import { describe, expect, it } from 'vitest';
import type { ManifestStatus } from '@kf/api';
import type { MemberInterpreter } from '../../interpreter/customizations.ts';
import { planManifestStatuses } from './manifest-statuses.ts';

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' } };

describe('planManifestStatuses', () => {
  it('identifies each manifest by ordinal, group, version, kind and name, with resource ""', () => {
    const live = [
      { ...cm, metadata: { ...cm.metadata, uid: '1' } },
      {
        ...deploy,
        metadata: { ...deploy.metadata, generation: 1 },
        spec: { replicas: 1 },
        status: { observedGeneration: 1, updatedReplicas: 1, availableReplicas: 1, replicas: 1 },
      },
    ];
    expect(planManifestStatuses([cm, deploy], live, []).statuses).toEqual([
      {
        identifier: {
          ordinal: 0,
          group: '',
          version: 'v1',
          kind: 'ConfigMap',
          resource: '',
          namespace: 'default',
          name: 'c',
        },
        health: 'Healthy',
      },
      {
        identifier: {
          ordinal: 1,
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          resource: '',
          namespace: 'default',
          name: 'd',
        },
        status: {
          replicas: 1,
          updatedReplicas: 1,
          availableReplicas: 1,
          generation: 1,
          observedGeneration: 1,
        },
        health: 'Healthy',
      },
    ]);
  });

  it('keeps the previous entry of a manifest whose object is not seen, and adds none for a new one', () => {
    const previous: ManifestStatus[] = [
      {
        identifier: { ordinal: 1, version: 'v1', kind: 'Deployment', resource: '', name: 'd' },
        health: 'Unhealthy',
      },
    ];
    expect(planManifestStatuses([cm, deploy], [undefined, undefined], previous).statuses).toEqual(previous);
  });

  it("judges by the kind's scripts and names the object of each failure; other manifests as usual", () => {
    const widget = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
    };
    const scripts: MemberInterpreter = {
      interpretHealth: (o) => {
        if (o.kind !== 'Widget') return undefined;
        throw new Error('InterpretHealth script of ResourceInterpreterCustomization widgets: failed');
      },
      reflectStatus: (o) => (o.kind === 'Widget' ? { phase: 'Spinning' } : undefined),
      retain: () => undefined,
    };
    const plan = planManifestStatuses(
      [cm, widget],
      [cm, { ...widget, status: { phase: 'Spinning', rpm: 3 } }],
      [],
      scripts,
    );
    expect(plan.statuses.map((s) => [s.identifier.kind, s.health, s.status])).toEqual([
      ['ConfigMap', 'Healthy', undefined],
      ['Widget', 'Unknown', { phase: 'Spinning' }],
    ]);
    expect(plan.failures).toEqual([
      {
        ordinal: 1,
        object: 'Widget/default/w',
        operation: 'InterpretHealth',
        message: 'InterpretHealth script of ResourceInterpreterCustomization widgets: failed',
      },
    ]);
  });
});
