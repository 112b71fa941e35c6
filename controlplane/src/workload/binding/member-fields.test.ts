import { describe, expect, it } from 'vitest';
import { withoutControlPlaneFields } from './member-fields.ts';

const service = (spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec,
});

const job = (spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'etl', namespace: 'default' },
  spec,
});

/** What the control plane's API server makes of a Job without manualSelector. */
const generatedJobSpec = {
  selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'cp-uid' } },
  ttlSecondsAfterFinished: 100,
  backoffLimit: 2,
  template: {
    metadata: {
      labels: {
        app: 'etl',
        'controller-uid': 'cp-uid',
        'job-name': 'etl',
        'batch.kubernetes.io/controller-uid': 'cp-uid',
        'batch.kubernetes.io/job-name': 'etl',
      },
    },
    spec: { restartPolicy: 'Never', containers: [{ name: 'etl', image: 'etl:1' }] },
  },
};

describe('withoutControlPlaneFields', () => {
  it("drops a Service's cluster IPs, which belong to the control plane's range", () => {
    const out = withoutControlPlaneFields(
      service({
        clusterIP: '10.96.0.20',
        clusterIPs: ['10.96.0.20'],
        ports: [{ port: 80 }],
        type: 'ClusterIP',
      }),
    );
    expect(out['spec']).toEqual({ ports: [{ port: 80 }], type: 'ClusterIP' });
  });

  it('keeps a headless Service headless', () => {
    const spec = { clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 80 }] };
    expect(withoutControlPlaneFields(service(spec))['spec']).toEqual(spec);
  });

  it('leaves a Service without a spec alone', () => {
    const s = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' } };
    expect(withoutControlPlaneFields(s)).toEqual(s);
  });

  it("drops a Job's generated selector, its labels on the pod template and the TTL", () => {
    const out = withoutControlPlaneFields(job(generatedJobSpec));
    expect(out['spec']).toEqual({
      backoffLimit: 2,
      template: {
        metadata: { labels: { app: 'etl' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'etl', image: 'etl:1' }] },
      },
    });
  });

  it('keeps a manual selector and its labels, dropping only the TTL', () => {
    const spec = { ...generatedJobSpec, manualSelector: true };
    const out = withoutControlPlaneFields(job(spec));
    expect(out['spec']).toEqual({ ...spec, ttlSecondsAfterFinished: undefined });
    expect(out['spec']).not.toHaveProperty('ttlSecondsAfterFinished');
  });

  it('copes with a Job whose template has no labels', () => {
    const out = withoutControlPlaneFields(
      job({ selector: { matchLabels: { a: 'b' } }, template: { spec: {} } }),
    );
    expect(out['spec']).toEqual({ template: { spec: {} } });
  });

  it("drops a ServiceAccount's control-plane token secrets and keeps the others", () => {
    const out = withoutControlPlaneFields({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'builder', namespace: 'ci' },
      secrets: [{ name: 'builder-token-x7k2p' }, { name: 'registry-pull' }, { name: 'other-token-abc' }],
    });
    expect(out['secrets']).toEqual([{ name: 'registry-pull' }, { name: 'other-token-abc' }]);
  });

  it.each([
    ['apps/v1', 'Deployment'],
    ['v1', 'ConfigMap'],
    ['example.com/v1', 'Service'],
    ['batch/v1', 'CronJob'],
  ])('leaves %s %s as it is', (apiVersion, kind) => {
    const m = {
      apiVersion,
      kind,
      metadata: { name: 'x' },
      spec: { clusterIP: '1.2.3.4', selector: { a: 'b' } },
    };
    expect(withoutControlPlaneFields(m)).toBe(m);
  });
});
