import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiException,
  CustomObjectsApi,
  KubernetesObjectApi,
  loadAllYaml,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type LocalCluster } from '@kf/testing';

const FIXTURES = join(import.meta.dirname, 'fixtures');

interface Fixture {
  readonly file: string;
  readonly objects: KubernetesObject[];
  /** For invalid fixtures: what the API server's message must contain. */
  readonly expect?: string;
}

function loadFixtures(kind: 'valid' | 'invalid'): Fixture[] {
  const dir = join(FIXTURES, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const expectLine = /^# expect: (.+)$/m.exec(text)?.[1]?.trim();
      return {
        file,
        objects: loadAllYaml(text) as KubernetesObject[],
        ...(expectLine !== undefined ? { expect: expectLine } : {}),
      };
    });
}

/** The API server's own message for a rejected request. */
function messageOf(err: unknown): string {
  if (err instanceof ApiException) {
    const body: unknown = err.body;
    if (typeof body === 'string') {
      try {
        const message = (JSON.parse(body) as { message?: unknown }).message;
        return typeof message === 'string' ? message : body;
      } catch {
        return body;
      }
    }
    return JSON.stringify(body);
  }
  return err instanceof Error ? err.message : String(err);
}

/** The error a request failed with; fails the test when the request was accepted. */
async function failure(request: Promise<unknown>, what: string): Promise<unknown> {
  const err: unknown = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `${what} was accepted`).toBeDefined();
  return err;
}

/** What the API server said when it refused a request. */
async function rejection(request: Promise<unknown>, what: string): Promise<string> {
  return messageOf(await failure(request, what));
}

const names = (n: number, prefix: string): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i)}`);

function propagationPolicy(name: string, spec: object): KubernetesObject {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: 'default' },
    spec,
  } as KubernetesObject;
}

function selectors(n: number): object[] {
  return names(n, 'app-').map((name) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name }));
}

function cluster(name: string, spec: object = {}): KubernetesObject {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name },
    spec: { syncMode: 'Pull', ...spec },
  } as KubernetesObject;
}

function taints(n: number): object[] {
  return names(n, 'example.com/t').map((key) => ({ key, effect: 'NoSchedule' }));
}

describe('CRD validation on a real API server', () => {
  let cp: LocalCluster;
  let api: KubernetesObjectApi;
  let custom: CustomObjectsApi;

  /** Reads a cluster-scoped custom object and PUTs its status subresource with `status`. */
  async function replaceStatus(
    at: { readonly group: string; readonly version: string; readonly plural: string; readonly name: string },
    status: object,
  ): Promise<unknown> {
    const current = (await custom.getClusterCustomObject(at)) as KubernetesObject;
    return custom.replaceClusterCustomObjectStatus({ ...at, body: { ...current, status } });
  }

  beforeAll(async () => {
    cp = await startControlPlane();
    api = KubernetesObjectApi.makeApiClient(cp.kubeConfig());
    custom = cp.kubeConfig().makeApiClient(CustomObjectsApi);
  });

  afterAll(async () => {
    await cp.destroy();
  });

  const valid = loadFixtures('valid');
  const invalid = loadFixtures('invalid');

  it('has fixtures of both kinds', () => {
    expect(valid.length).toBeGreaterThanOrEqual(9);
    expect(invalid.length).toBeGreaterThanOrEqual(12);
    for (const f of invalid) expect(f.expect, `${f.file} needs a '# expect:' line`).toBeDefined();
  });

  it.each(valid.map((f) => [f.file, f] as const))('accepts %s', async (_file, fixture) => {
    for (const obj of fixture.objects) {
      await expect(api.create(obj, undefined, 'All')).resolves.toBeDefined();
    }
  });

  it.each(invalid.map((f) => [f.file, f] as const))('rejects %s naming the field', async (_file, fixture) => {
    const [obj] = fixture.objects;
    if (obj === undefined) throw new Error(`${fixture.file} holds no object`);
    expect(await rejection(api.create(obj, undefined, 'All'), fixture.file)).toContain(fixture.expect);
  });

  describe('bounds on lists users write', () => {
    it.each([
      [
        '20,000 resource selectors',
        () => propagationPolicy('many-selectors', { resourceSelectors: selectors(20_000) }),
        'spec.resourceSelectors: Too many: 20000: must have at most 100 items',
      ],
      [
        '50,000 cluster names',
        () =>
          propagationPolicy('many-clusters', {
            resourceSelectors: selectors(1),
            placement: { clusterAffinity: { clusterNames: names(50_000, 'member') } },
          }),
        'spec.placement.clusterAffinity.clusterNames: Too many: 50000: must have at most 1000 items',
      ],
      [
        '3,000 taints on a Cluster',
        () => cluster('many-taints', { taints: taints(3_000) }),
        'spec.taints: Too many: 3000: must have at most 100 items',
      ],
    ] as const)('refuses %s', async (what, object, expected) => {
      expect(await rejection(api.create(object()), what)).toContain(expected);
    });

    it('accepts lists at their bounds', async () => {
      await api.create(
        propagationPolicy('at-bounds', {
          resourceSelectors: selectors(100),
          placement: {
            clusterAffinity: { clusterNames: names(1_000, 'member'), exclude: names(1_000, 'old') },
          },
        }),
      );
      await api.create(cluster('at-bounds', { taints: taints(100) }));
    });
  });

  describe('Cluster conditions, as written through the status subresource', () => {
    const group = 'cluster.karmada.io';
    const version = 'v1alpha1';
    const plural = 'clusters';
    const now = '2026-11-20T10:00:00Z';
    const ready = {
      type: 'Ready',
      status: 'True',
      reason: 'ClusterReady',
      message: 'cluster is healthy and ready to accept workloads',
      lastTransitionTime: now,
    };

    const writeStatus = (name: string, status: object): Promise<unknown> =>
      replaceStatus({ group, version, plural, name }, status);

    it.each([
      [
        'a type that is not a condition type',
        'bad-type',
        [{ ...ready, type: 'bad type!' }],
        'status.conditions[0].type',
      ],
      [
        'a reason that is not CamelCase',
        'bad-reason',
        [{ ...ready, reason: 'not ready' }],
        'status.conditions[0].reason',
      ],
      [
        'a 40,000-character message',
        'long-message',
        [{ ...ready, message: 'x'.repeat(40_000) }],
        'status.conditions[0].message: Too long',
      ],
      [
        'two Ready conditions',
        'two-ready',
        [ready, { ...ready, status: 'False', reason: 'ClusterNotReady' }],
        'status.conditions[1]: Duplicate value',
      ],
    ] as const)('refuses %s', async (what, name, conditions, expected) => {
      await api.create(cluster(name));
      expect(await rejection(writeStatus(name, { conditions }), what)).toContain(expected);
    });

    it('accepts what agents write: unset reason and message as Go sends them, and the API list of a large cluster', async () => {
      await api.create(cluster('large-member'));
      // Hundreds of group versions with dozens of resources each: a cluster with many operators.
      const apiEnablements = names(400, 'group').map((g) => ({
        groupVersion: `${g}.example.com/v1`,
        resources: names(40, 'Widget').map((kind) => ({ name: `${kind.toLowerCase()}s`, kind })),
      }));
      const conditions = [
        ready,
        { type: 'CompleteAPIEnablements', status: 'True', reason: '', message: '', lastTransitionTime: now },
        { type: 'example.com/Maintenance', status: 'False' },
      ];
      await expect(writeStatus('large-member', { apiEnablements, conditions })).resolves.toBeDefined();
    });
  });

  it.each([
    ['remedy.karmada.io', 'remedies', 'Remedy', { actions: ['TrafficControl'] }],
    [
      'policy.karmada.io',
      'clustertaintpolicies',
      'ClusterTaintPolicy',
      { taints: [{ key: 'example.com/t', effect: 'NoSchedule' }] },
    ],
  ] as const)('serves no status for %s/%s, as upstream', async (group, plural, kind, spec) => {
    const name = `no-status-${plural}`;
    const version = 'v1alpha1';
    await api.create({
      apiVersion: `${group}/${version}`,
      kind,
      metadata: { name },
      spec,
    } as KubernetesObject);
    const err = await failure(
      replaceStatus({ group, version, plural, name }, { observedGeneration: 1 }),
      'a status write',
    );
    expect(err instanceof ApiException ? err.code : err).toBe(404);
  });
});
