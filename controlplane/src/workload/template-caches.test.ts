import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { PropagationPolicy } from '@kf/api';
import { createLogger, type ObjectEventHandler, type ObjectSource } from '@kf/runtime';
import { builtInKinds } from './kinds.ts';
import { TemplateCaches } from './template-caches.ts';

const log = createLogger({ component: 'test', level: 'silent' });

function policy(name: string, ...selected: (readonly [string, string])[]): PropagationPolicy {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: 'default' },
    spec: { resourceSelectors: selected.map(([apiVersion, kind]) => ({ apiVersion, kind })) },
  };
}

/** Policies in memory, whose events the test plays. */
function policySource(listed: readonly PropagationPolicy[]) {
  const handlers = new Set<ObjectEventHandler<PropagationPolicy>>();
  const source: ObjectSource<PropagationPolicy> = {
    list: () => listed,
    onEvent: (h) => {
      handlers.add(h);
      return () => handlers.delete(h);
    },
    synced: () => Promise.resolve(),
  };
  const play: ObjectEventHandler<PropagationPolicy> = (...args) => {
    for (const h of handlers) h(...args);
  };
  return { source, play };
}

function caches(): TemplateCaches {
  return new TemplateCaches({
    kubeConfig: new KubeConfig(),
    log,
    kinds: { resolve: builtInKinds },
    initial: [['apps/v1', 'Deployment']],
  });
}

const watched = (t: TemplateCaches) => t.types().map((x) => `${x.apiVersion}/${x.kind}`);

describe('TemplateCaches.followSelectors', () => {
  it('watches the kinds of the policies listed now, and of each policy added or changed later', () => {
    const t = caches();
    const { source, play } = policySource([policy('a', ['apps/v1', 'StatefulSet'])]);
    t.followSelectors(source);
    expect(watched(t)).toEqual(['apps/v1/Deployment', 'apps/v1/StatefulSet']);

    play('ADDED', policy('b', ['v1', 'ConfigMap']));
    expect(watched(t)).toContain('v1/ConfigMap');
    play('MODIFIED', policy('b', ['v1', 'ConfigMap'], ['batch/v1', 'Job']), policy('b', ['v1', 'ConfigMap']));
    expect(watched(t)).toContain('batch/v1/Job');
    // A deleted policy starts nothing (and stops nothing: another policy may select the kind).
    play('DELETED', policy('c', ['v1', 'Secret']), policy('c', ['v1', 'Secret']));
    expect(watched(t)).not.toContain('v1/Secret');
    expect(watched(t)).toContain('batch/v1/Job');
  });

  it('keeps a kind not served yet pending, and never watches kinds that are not propagated', () => {
    const t = caches();
    const { source, play } = policySource([]);
    t.followSelectors(source);
    play('ADDED', policy('w', ['example.io/v1', 'Widget'], ['v1', 'Event']));
    expect(t.pendingTypes()).toEqual([['example.io/v1', 'Widget']]);
    expect(watched(t)).toEqual(['apps/v1/Deployment']);
  });
});
