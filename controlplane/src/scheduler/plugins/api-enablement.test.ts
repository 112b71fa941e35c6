import { describe, expect, it } from 'vitest';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { apiEnablement } from './api-enablement.ts';

describe('APIEnablement', () => {
  it.each<[string, readonly string[], Record<string, number>, boolean]>([
    ['the cluster serves the resource', ['apps/v1/Deployment'], {}, true],
    ['another version is not enough', ['apps/v1beta1/Deployment'], {}, false],
    ['another kind is not enough', ['apps/v1/StatefulSet'], {}, false],
    ['no API listed', [], {}, false],
    ['a cluster already holding the workload passes', [], { m1: 1 }, true],
  ])('%s', (_name, apis, current, ok) => {
    const fit = apiEnablement.filter(attemptFor(binding({ clusters: current })), cluster('m1', { apis }));
    expect(fit).toEqual(
      ok ? { ok: true } : { ok: false, reason: 'cluster(s) did not have the API resource' },
    );
  });

  it('matches core resources by version and kind', () => {
    const b = binding({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(apiEnablement.filter(attemptFor(b), cluster('m1', { apis: ['v1/ConfigMap'] })).ok).toBe(true);
  });
});
