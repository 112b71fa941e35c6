import { describe, expect, it } from 'vitest';
import type { ResourceTemplate } from '../template.ts';
import { builtInDependencies } from './built-in.ts';

const podSpec = {
  serviceAccountName: 'runner',
  imagePullSecrets: [{ name: 'registry' }, { name: '' }],
  initContainers: [{ name: 'init', envFrom: [{ configMapRef: { name: 'init-env' } }] }],
  containers: [
    {
      name: 'app',
      envFrom: [{ configMapRef: { name: 'app-env' } }, { secretRef: { name: 'app-secret-env' } }],
      env: [
        { name: 'A', valueFrom: { configMapKeyRef: { name: 'app-key', key: 'a' } } },
        { name: 'B', valueFrom: { secretKeyRef: { name: 'app-secret-key', key: 'b' } } },
        { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'D', value: 'plain' },
      ],
    },
  ],
  ephemeralContainers: [{ name: 'debug', envFrom: [{ secretRef: { name: 'debug-secret' } }] }],
  volumes: [
    { name: 'cm', configMap: { name: 'mounted-cm' } },
    { name: 'sec', secret: { secretName: 'mounted-secret' } },
    {
      name: 'proj',
      projected: {
        sources: [
          { configMap: { name: 'projected-cm' } },
          { secret: { name: 'projected-secret' } },
          { serviceAccountToken: { path: 'token' } },
        ],
      },
    },
    { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
    { name: 'csi', csi: { driver: 'x', nodePublishSecretRef: { name: 'csi-secret' } } },
    { name: 'azure', azureFile: { secretName: 'azure-secret', shareName: 's' } },
    { name: 'ceph', cephfs: { monitors: [], secretRef: { name: 'ceph-secret' } } },
    { name: 'scratch', emptyDir: {} },
  ],
};

function workload(apiVersion: string, kind: string, spec: Record<string, unknown>): ResourceTemplate {
  return { apiVersion, kind, metadata: { name: 'w', namespace: 'shop' }, spec };
}

const ref = (kind: string, name: string): object => ({ apiVersion: 'v1', kind, namespace: 'shop', name });

const EXPECTED = [
  ref('ConfigMap', 'app-env'),
  ref('ConfigMap', 'app-key'),
  ref('ConfigMap', 'init-env'),
  ref('ConfigMap', 'mounted-cm'),
  ref('ConfigMap', 'projected-cm'),
  ref('Secret', 'app-secret-env'),
  ref('Secret', 'app-secret-key'),
  ref('Secret', 'azure-secret'),
  ref('Secret', 'ceph-secret'),
  ref('Secret', 'csi-secret'),
  ref('Secret', 'debug-secret'),
  ref('Secret', 'mounted-secret'),
  ref('Secret', 'projected-secret'),
  ref('Secret', 'registry'),
  ref('ServiceAccount', 'runner'),
  ref('PersistentVolumeClaim', 'data'),
];

describe('builtInDependencies', () => {
  it.each([
    ['apps/v1', 'Deployment'],
    ['apps/v1', 'ReplicaSet'],
    ['apps/v1', 'DaemonSet'],
    ['apps/v1', 'StatefulSet'],
    ['batch/v1', 'Job'],
  ])('finds every ConfigMap, Secret, ServiceAccount and PVC of a %s/%s pod template', (apiVersion, kind) => {
    const deps = builtInDependencies(workload(apiVersion, kind, { template: { spec: podSpec } }));
    expect(deps).toEqual(EXPECTED);
  });

  it('reads a CronJob through its job template and a Pod directly', () => {
    const cron = workload('batch/v1', 'CronJob', { jobTemplate: { spec: { template: { spec: podSpec } } } });
    expect(builtInDependencies(cron)).toEqual(EXPECTED);
    expect(builtInDependencies(workload('v1', 'Pod', podSpec))).toEqual(EXPECTED);
  });

  it('does not count the default service account, an empty one, or the same name twice', () => {
    const spec = (sa: string): Record<string, unknown> => ({
      template: {
        spec: {
          serviceAccountName: sa,
          containers: [{ envFrom: [{ configMapRef: { name: 'x' } }, { configMapRef: { name: 'x' } }] }],
          volumes: [{ configMap: { name: 'x' } }, { configMap: {} }],
        },
      },
    });
    for (const sa of ['default', '']) {
      expect(builtInDependencies(workload('apps/v1', 'Deployment', spec(sa)))).toEqual([
        ref('ConfigMap', 'x'),
      ]);
    }
  });

  it('leaves out the PVCs a StatefulSet makes from its volumeClaimTemplates', () => {
    const sts = workload('apps/v1', 'StatefulSet', {
      volumeClaimTemplates: [{ metadata: { name: 'data' } }],
      template: {
        spec: {
          containers: [{ name: 'db' }],
          volumes: [
            { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
            { name: 'shared', persistentVolumeClaim: { claimName: 'shared' } },
          ],
        },
      },
    });
    expect(builtInDependencies(sts)).toEqual([ref('PersistentVolumeClaim', 'shared')]);
  });

  it('gives an Ingress its TLS Secrets', () => {
    const ing = workload('networking.k8s.io/v1', 'Ingress', {
      tls: [{ secretName: 'cert' }, { hosts: ['a'] }],
    });
    expect(builtInDependencies(ing)).toEqual([ref('Secret', 'cert')]);
  });

  it('has no rules for other kinds', () => {
    expect(builtInDependencies(workload('apps.kruise.io/v1alpha1', 'CloneSet', {}))).toBeUndefined();
    expect(builtInDependencies(workload('v1', 'ConfigMap', {}))).toBeUndefined();
  });

  it('finds nothing in a template without a pod spec', () => {
    expect(builtInDependencies(workload('apps/v1', 'Deployment', {}))).toEqual([]);
  });
});
