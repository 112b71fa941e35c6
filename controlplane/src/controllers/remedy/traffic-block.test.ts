import { describe, expect, it } from 'vitest';
import type { MultiClusterIngressSpec, MultiClusterIngressStatus } from '@kf/api';
import { listBackendServices, planIngressTraffic, type IngressTrafficInput } from './traffic-block.ts';

const spec: MultiClusterIngressSpec = {
  defaultBackend: { service: { name: 'fallback', port: { number: 80 } } },
  rules: [
    {
      host: 'shop.example.com',
      http: {
        paths: [
          { path: '/cart', pathType: 'Prefix', backend: { service: { name: 'cart', port: { number: 80 } } } },
          { path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { name: 'http' } } } },
          { path: '/static', pathType: 'Prefix', backend: { resource: { kind: 'Bucket', name: 'assets' } } },
        ],
      },
    },
    {
      host: 'api.example.com',
      http: { paths: [{ pathType: 'Prefix', backend: { service: { name: 'api' } } }] },
    },
    { host: 'empty.example.com' },
  ],
};

describe('listBackendServices', () => {
  it.each<[string, MultiClusterIngressSpec, string[]]>([
    ['every service backend, once, sorted', spec, ['api', 'cart', 'fallback']],
    ['no backends', {}, []],
    [
      'resource backends are not services',
      { defaultBackend: { resource: { kind: 'Bucket', name: 'b' } } },
      [],
    ],
  ])('%s', (_name, s, expected) => {
    expect(listBackendServices(s)).toEqual(expected);
  });
});

describe('planIngressTraffic', () => {
  const serviceClusters = new Map([
    ['api', ['m2', 'm1']],
    ['cart', ['m1', 'm3', 'm1']],
    ['unrelated', ['m9']],
  ]);
  const tc = ['TrafficControl'];
  const locations = [
    { name: 'api', clusters: ['m1', 'm2'] },
    { name: 'cart', clusters: ['m1', 'm3'] },
    { name: 'fallback' },
  ];
  const loadBalancer = { ingress: [{ ip: '203.0.113.10' }] };
  const input = (over: Partial<IngressTrafficInput>): IngressTrafficInput => ({
    spec,
    status: undefined,
    serviceClusters,
    clusterActions: new Map(),
    ...over,
  });

  it.each<[string, Partial<IngressTrafficInput>, MultiClusterIngressStatus, boolean, string[] | undefined]>([
    ['no remedies: locations only', {}, { serviceLocations: locations }, true, undefined],
    [
      'a hosting cluster with TrafficControl is blocked',
      { clusterActions: new Map([['m1', tc]]) },
      { trafficBlockClusters: ['m1'], serviceLocations: locations },
      true,
      undefined,
    ],
    [
      'a cluster hosting no backend is not blocked',
      { clusterActions: new Map([['m9', tc]]) },
      { serviceLocations: locations },
      true,
      undefined,
    ],
    [
      'other actions do not block',
      { clusterActions: new Map([['m1', ['Other']]]) },
      { serviceLocations: locations },
      true,
      undefined,
    ],
    [
      'several blocked clusters, sorted',
      {
        clusterActions: new Map([
          ['m3', tc],
          ['m1', tc],
        ]),
      },
      { trafficBlockClusters: ['m1', 'm3'], serviceLocations: locations },
      true,
      undefined,
    ],
    [
      'fail open: blocking every hosting cluster blocks none',
      {
        clusterActions: new Map([
          ['m1', tc],
          ['m2', tc],
          ['m3', tc],
        ]),
      },
      { serviceLocations: locations },
      true,
      ['m1', 'm2', 'm3'],
    ],
    [
      'strict mode blocks every hosting cluster',
      {
        clusterActions: new Map([
          ['m1', tc],
          ['m2', tc],
          ['m3', tc],
        ]),
        failOpen: false,
      },
      { trafficBlockClusters: ['m1', 'm2', 'm3'], serviceLocations: locations },
      true,
      undefined,
    ],
    [
      'unblocked when the action goes away; the load balancer status is kept',
      { status: { loadBalancer, trafficBlockClusters: ['m1'], serviceLocations: locations } },
      { loadBalancer, serviceLocations: locations },
      true,
      undefined,
    ],
    [
      'an up-to-date status is not changed',
      {
        status: { loadBalancer, trafficBlockClusters: ['m1'], serviceLocations: locations },
        clusterActions: new Map([['m1', tc]]),
      },
      { loadBalancer, trafficBlockClusters: ['m1'], serviceLocations: locations },
      false,
      undefined,
    ],
    [
      'a stale location is a change',
      { status: { serviceLocations: [{ name: 'api', clusters: ['m1'] }] } },
      { serviceLocations: locations },
      true,
      undefined,
    ],
    ['an ingress without backends has an empty status', { spec: {} }, {}, false, undefined],
  ])('%s', (...[, over, status, changed, failedOpen]) => {
    const plan = planIngressTraffic(input(over));
    expect(plan.status).toEqual(status);
    expect(plan.changed).toBe(changed);
    expect(plan.failedOpen).toEqual(failedOpen);
  });
});
