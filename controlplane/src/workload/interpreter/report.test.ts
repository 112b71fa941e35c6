import { describe, expect, it } from 'vitest';
import type { Condition, ResourceBinding } from '@kf/api';
import { KubeError, type EventRecorder } from '@kf/kube';
import type { Binding } from '../../bindings.ts';
import type { ScriptOutcome } from './script-condition.ts';
import { reportScriptOutcome, type ReportDeps } from './report.ts';

const KEY = 'default/web-deployment';
const NOW = Date.parse('2026-05-01T10:00:00Z');

function binding(resourceVersion: string, conditions: readonly Condition[] = []): ResourceBinding {
  return {
    metadata: { name: 'web-deployment', namespace: 'default', resourceVersion },
    spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' } },
    status: { conditions },
  };
}

/** A binding client whose stored copy is `stored`; a status patch at another version conflicts. */
function serverOf(stored: ResourceBinding): {
  deps: ReportDeps;
  reads: number;
  patches: string[];
  events: string[];
} {
  const state = { current: stored, reads: 0, patches: [] as string[], events: [] as string[] };
  const client = {
    get: () => {
      state.reads++;
      return Promise.resolve(state.current);
    },
    patchStatus: (_key: string, patch: { metadata: { resourceVersion?: string }; status: object }) => {
      const rv = patch.metadata.resourceVersion ?? '';
      state.patches.push(rv);
      if (rv !== state.current.metadata.resourceVersion)
        return Promise.reject(new KubeError('Conflict', 'the object has been modified', { status: 409 }));
      const next = String(Number(rv) + 1);
      state.current = { ...state.current, metadata: { ...state.current.metadata, resourceVersion: next } };
      return Promise.resolve(state.current);
    },
  };
  const events = { record: (_o: unknown, _t: string, reason: string) => state.events.push(reason) };
  const deps = {
    writes: { client: () => client } as unknown as ReportDeps['writes'],
    events: events as unknown as EventRecorder,
  };
  return Object.assign(state, { deps });
}

const signal = new AbortController().signal;

/** Reports GetReplicas' `outcome` on the binding as a controller holds it (at resourceVersion 5). */
function report(server: ReturnType<typeof serverOf>, outcome: ScriptOutcome<unknown>): Promise<Binding> {
  return reportScriptOutcome(
    server.deps,
    { key: KEY, b: binding('5') },
    { step: 'GetReplicas', outcome },
    { nowMs: NOW, signal },
  );
}

describe('reportScriptOutcome', () => {
  it('writes the condition from the copy it was given when that copy is current', async () => {
    const server = serverOf(binding('5'));
    const written = await report(server, { kind: 'succeeded', value: 3 });
    expect(server.patches).toEqual(['5']);
    expect(server.reads).toBe(0);
    expect(written.metadata.resourceVersion).toBe('6');
  });

  it('on a conflict writes again at once from the binding as the API server has it', async () => {
    const server = serverOf(
      binding('9', [
        {
          type: 'Scheduled',
          status: 'True',
          reason: 'Success',
          message: '',
          lastTransitionTime: '2026-05-01T09:00:00Z',
        },
      ]),
    );
    const written = await report(server, { kind: 'failed', message: 'boom' });
    expect(server.patches).toEqual(['5', '9']);
    expect(server.reads).toBe(1);
    expect(written.metadata.resourceVersion).toBe('10');
    // The failure's Warning follows the write that succeeded, once (on the binding and its template).
    expect(server.events).toEqual(['GetReplicasFailed', 'GetReplicasFailed']);
  });

  it('writes nothing when the fresh copy already holds the condition', async () => {
    const held: Condition = {
      type: 'ReplicasInterpreted',
      status: 'True',
      lastTransitionTime: '2026-05-01T09:00:00Z',
      reason: 'GetReplicasSucceed',
      message: 'Replicas and replica requirements come from the InterpretReplica script.',
    };
    const server = serverOf(binding('9', [held]));
    const first = await report(server, { kind: 'succeeded', value: 3 });
    expect(server.patches).toEqual(['5']);
    expect(server.reads).toBe(1);
    expect(first.metadata.resourceVersion).toBe('9');
  });
});
