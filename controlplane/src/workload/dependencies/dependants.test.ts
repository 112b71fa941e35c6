import { describe, expect, it } from 'vitest';
import type { ResourceTemplate } from '../template.ts';
import { DependantIndex } from './dependants.ts';

const t = (apiVersion: string, kind: string, namespace: string, name: string): ResourceTemplate => ({
  apiVersion,
  kind,
  metadata: { namespace, name },
});

describe('DependantIndex', () => {
  it('queues the dependants of the namespace that named the type, and the one whose template it is', () => {
    const index = new DependantIndex();
    index.track('shop', 'web-deployment', new Set(['v1/ConfigMap']));
    index.track('shop', 'api-deployment', new Set(['v1/Secret']));
    index.track('other', 'x-deployment', new Set(['v1/ConfigMap']));
    expect(index.dependantsOf(t('v1', 'ConfigMap', 'shop', 'c'))).toEqual(['shop/web-deployment']);
    expect(index.dependantsOf(t('apps/v1', 'Deployment', 'shop', 'api'))).toEqual(['shop/api-deployment']);
    expect(index.dependantsOf(t('v1', 'ConfigMap', 'empty', 'c'))).toEqual([]);
  });

  it('matches every type for a dependant not looked at yet, and nothing once forgotten', () => {
    const index = new DependantIndex();
    index.track('shop', 'web-deployment', undefined);
    expect(index.dependantsOf(t('v1', 'Service', 'shop', 's'))).toEqual(['shop/web-deployment']);
    index.forget('shop', 'web-deployment');
    expect(index.dependantsOf(t('v1', 'Service', 'shop', 's'))).toEqual([]);
  });
});
