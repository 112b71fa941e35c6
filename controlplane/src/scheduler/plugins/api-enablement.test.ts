import { describe, expect, it } from 'vitest';
import { attemptFor, binding, cluster } from '../test-builders.ts';
import { API_DISABLED_REASON, API_UNKNOWN_REASON, apiEnablement } from './api-enablement.ts';

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

  it.each<[string, boolean, string]>([
    ['a complete list: the API is not served', true, API_DISABLED_REASON],
    [
      'a partial list: whether it is served is unknown, and the cluster is still left out',
      false,
      API_UNKNOWN_REASON,
    ],
  ])('an unlisted API, %s', (_name, complete, reason) => {
    const c = cluster('m1', { apis: ['v1/ConfigMap'], apiListComplete: complete });
    expect(apiEnablement.filter(attemptFor(binding()), c)).toEqual({ ok: false, reason });
  });

  it('a listed API passes whether the list is complete or not', () => {
    const c = cluster('m1', { apis: ['apps/v1/Deployment'], apiListComplete: false });
    expect(apiEnablement.filter(attemptFor(binding()), c)).toEqual({ ok: true });
  });

  it('matches core resources by version and kind', () => {
    const b = binding({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(apiEnablement.filter(attemptFor(b), cluster('m1', { apis: ['v1/ConfigMap'] })).ok).toBe(true);
  });
});
