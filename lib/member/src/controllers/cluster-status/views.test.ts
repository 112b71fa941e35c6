import { expect, it } from 'vitest';
import { nodeViewOf, podViewOf } from './views.ts';

it('reduces a pod to node, phase and requests', () => {
  expect(
    podViewOf({
      spec: {
        nodeName: 'n1',
        containers: [{ resources: { requests: { cpu: '1' } } }, {}],
        initContainers: [{ resources: { requests: { memory: '1Gi' } } }],
        overhead: { cpu: '10m' },
      },
      status: { phase: 'Running' },
    }),
  ).toEqual({
    nodeName: 'n1',
    phase: 'Running',
    containers: [{ cpu: '1' }, {}],
    initContainers: [{ memory: '1Gi' }],
    overhead: { cpu: '10m' },
  });
  expect(podViewOf({})).toEqual({ nodeName: '', phase: '', containers: [], initContainers: [] });
});

it.each([
  [[{ type: 'Ready', status: 'True' }], true],
  [[{ type: 'Ready', status: 'Unknown' }], false],
  [[{ type: 'MemoryPressure', status: 'True' }], false],
  [undefined, false],
])('a node with conditions %j is ready=%s', (conditions, ready) => {
  expect(
    nodeViewOf({
      metadata: { name: 'n' },
      status: { ...(conditions ? { conditions } : {}), allocatable: { cpu: '2' } },
    }),
  ).toEqual({
    name: 'n',
    ready,
    allocatable: { cpu: '2' },
  });
});
