import { describe, expect, it } from 'vitest';
import { ConfigError } from '@kf/runtime';
import { commandFailure } from './command-failure.ts';
import { KubeError } from './errors.ts';

describe('commandFailure', () => {
  it.each<[string, unknown, number, string | undefined]>([
    [
      'bad flags',
      new ConfigError(['--cluster "X" must be a DNS label']),
      2,
      'invalid configuration: --cluster "X" must be a DNS label',
    ],
    [
      'a 422 of the API server: the input was wrong',
      new KubeError(
        'Invalid',
        'Cluster.cluster.karmada.io "m1" is invalid: status.conditions[0].reason: Invalid value',
        {
          status: 422,
        },
      ),
      2,
      'error: the API server refused the request as invalid: Cluster.cluster.karmada.io "m1" is invalid: status.conditions[0].reason: Invalid value',
    ],
    [
      'an unreachable API server',
      new KubeError('Network', 'connect ECONNREFUSED 127.0.0.1:1'),
      1,
      'error: cannot reach the API server: connect ECONNREFUSED 127.0.0.1:1',
    ],
    [
      'rejected credentials',
      new KubeError('Unauthorized', 'Unauthorized', { status: 401 }),
      1,
      'error: the API server refused the credentials of the kubeconfig: Unauthorized',
    ],
    [
      'no permission: the server says who and what',
      new KubeError('Forbidden', 'clusters "m1" is forbidden: User "u" cannot get resource "clusters"', {
        status: 403,
      }),
      1,
      'error: clusters "m1" is forbidden: User "u" cannot get resource "clusters"',
    ],
    ['a message on several lines', new KubeError('Unknown', 'first\n  second\n'), 1, 'error: first; second'],
    ['anything else', new Error('boom'), 1, 'error: boom'],
    ['a thrown string', 'boom', 1, 'error: boom'],
  ])('%s', (_name, err, exitCode, message) => {
    expect(commandFailure(err)).toEqual(message === undefined ? { exitCode } : { exitCode, message });
  });
});
