import { ApiException } from '@kubernetes/client-node';
import { KubeError } from '@kf/kube';
import { describe, expect, it } from 'vitest';
import { warnUnlessConflict } from './write-warnings.ts';

function apiException(code: number, reason: string): ApiException<string> {
  const status = {
    kind: 'Status',
    status: 'Failure',
    code,
    reason,
    message: `${reason} from the API server`,
  };
  return new ApiException(code, `HTTP ${String(code)}`, JSON.stringify(status), {});
}

describe('warnUnlessConflict', () => {
  it.each([
    ['a Conflict (stale resourceVersion)', new KubeError('Conflict', 'the object has been modified'), false],
    ['a Conflict as client-node throws it', apiException(409, 'Conflict'), false],
    ['a refusal as client-node throws it', apiException(422, 'Invalid'), true],
    ['Forbidden', new KubeError('Forbidden', 'cannot patch clusters'), true],
    ['Invalid', new KubeError('Invalid', 'spec.taints: Too many'), true],
    ['NotFound', new KubeError('NotFound', 'clusters "m1" not found'), true],
    ['an error that is not from the API server', new Error('socket hang up'), true],
  ] as const)('%s: warns %s', (_name, err, warned) => {
    let calls = 0;
    warnUnlessConflict(err, () => calls++);
    expect(calls).toBe(warned ? 1 : 0);
  });
});
