import { describe, expect, it } from 'vitest';
import { NODE_CONDITION_TYPE } from '../health/node-condition.ts';
import { isNodeReady, projectNode, type NodeObject } from './node-object.ts';

const ready = { type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z' };
const ours = {
  type: NODE_CONDITION_TYPE,
  status: 'False',
  reason: 'ServiceDomainNameResolutionFailed',
  message: 'lookups failed',
  lastHeartbeatTime: '2026-01-01T00:00:10Z',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

describe('projectNode', () => {
  it('keeps the keys and the Ready and probe conditions, nothing else', () => {
    const full = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'node-1',
        uid: 'u1',
        resourceVersion: '42',
        labels: { 'kubernetes.io/hostname': 'node-1' },
        managedFields: [{ manager: 'kubelet' }],
      },
      spec: { podCIDR: '10.0.0.0/24' },
      status: {
        capacity: { cpu: '4' },
        images: [{ names: ['registry.example/app:1'], sizeBytes: 1 }],
        conditions: [{ type: 'MemoryPressure', status: 'False' }, ready, ours],
      },
    };
    expect(projectNode(full)).toEqual({
      metadata: { name: 'node-1', resourceVersion: '42' },
      status: { conditions: [ready, ours] },
    });
  });

  it('leaves out what the Node does not have', () => {
    expect(projectNode({ metadata: { name: 'bare' } })).toEqual({ metadata: { name: 'bare' } });
    expect(projectNode({})).toEqual({ metadata: {} });
  });

  it('keeps what the leader judges a node by', () => {
    const node: NodeObject = { metadata: { name: 'n' }, status: { conditions: [ready, ours] } };
    expect(isNodeReady(projectNode(node))).toBe(true);
    expect(projectNode(node).status?.conditions?.find((c) => c.type === NODE_CONDITION_TYPE)).toEqual(ours);
  });
});
