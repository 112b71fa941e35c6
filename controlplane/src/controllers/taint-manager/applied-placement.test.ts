import { describe, expect, it } from 'vitest';
import { readAppliedTolerations } from './applied-placement.ts';

const key = 'policy.karmada.io/applied-placement';

describe('readAppliedTolerations', () => {
  it.each<[string, Record<string, string> | undefined, unknown]>([
    ['no annotations', undefined, { ok: false, problem: `annotation ${key} is missing` }],
    ['empty annotation', { [key]: '' }, { ok: false, problem: `annotation ${key} is missing` }],
    ['broken JSON', { [key]: '{' }, { ok: false, problem: `annotation ${key} is not valid JSON` }],
    ['JSON null', { [key]: 'null' }, { ok: false, problem: `annotation ${key} is not a placement object` }],
    ['a list', { [key]: '[]' }, { ok: false, problem: `annotation ${key} is not a placement object` }],
    [
      'tolerations not a list',
      { [key]: '{"clusterTolerations":{}}' },
      { ok: false, problem: 'clusterTolerations of the applied placement is not a list' },
    ],
    [
      'a placement without tolerations',
      { [key]: '{"clusterAffinity":{"clusterNames":["m1"]}}' },
      { ok: true, tolerations: [] },
    ],
    [
      'a placement with tolerations',
      {
        [key]:
          '{"clusterTolerations":[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":30}]}',
      },
      {
        ok: true,
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }],
      },
    ],
  ])('%s', (_name, annotations, expected) => {
    expect(readAppliedTolerations(annotations)).toEqual(expected);
  });
});
