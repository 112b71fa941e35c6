import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiException,
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

describe('CRD validation on a real API server', () => {
  let cp: LocalCluster;
  let api: KubernetesObjectApi;

  beforeAll(async () => {
    cp = await startControlPlane();
    api = KubernetesObjectApi.makeApiClient(cp.kubeConfig());
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
    const err: unknown = await api.create(obj, undefined, 'All').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, `${fixture.file} was accepted`).toBeDefined();
    expect(messageOf(err)).toContain(fixture.expect);
  });
});
