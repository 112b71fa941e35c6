import { describe, expect, it } from 'vitest';
import { ConfigError, type Logger } from '@kf/runtime';
import { commandFailure, reportServiceFailure, serviceFailure } from './command-failure.ts';
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

describe('serviceFailure', () => {
  it.each<[string, unknown, number, string]>([
    [
      "a refusal as invalid is not the operator's input once running: 1",
      new KubeError('Invalid', 'Lease.coordination.k8s.io "m1" is invalid', { status: 422 }),
      1,
      'error: agent failed: the API server refused the request as invalid: Lease.coordination.k8s.io "m1" is invalid',
    ],
    [
      'an unreachable API server',
      new KubeError('Network', 'connect ECONNREFUSED 127.0.0.1:1'),
      1,
      'error: agent failed: cannot reach the API server: connect ECONNREFUSED 127.0.0.1:1',
    ],
    [
      'a message on several lines',
      new Error('caches not synced: clusters\n    at x (y.ts:1:1)'),
      1,
      'error: agent failed: caches not synced: clusters; at x (y.ts:1:1)',
    ],
    ['a thrown string', 'boom', 1, 'error: agent failed: boom'],
    [
      'a configuration error speaks for itself',
      new ConfigError(['--kubeconfig names no cluster']),
      2,
      'invalid configuration: --kubeconfig names no cluster',
    ],
  ])('%s', (_name, err, exitCode, message) => {
    expect(serviceFailure(err, 'agent')).toEqual({ exitCode, message });
  });
});

describe('reportServiceFailure', () => {
  it('logs the failure as fatal, prints its one line and returns the exit code', () => {
    const logged: unknown[][] = [];
    const log = { fatal: (...args: unknown[]) => void logged.push(args) } as unknown as Logger;
    const printed: string[] = [];
    const err = new KubeError('Network', 'connect ECONNREFUSED 127.0.0.1:1');
    const code = reportServiceFailure(err, 'probe', log, { write: (text: string) => printed.push(text) > 0 });
    expect(code).toBe(1);
    expect(logged).toEqual([[{ err }, 'probe failed']]);
    expect(printed).toEqual([
      'error: probe failed: cannot reach the API server: connect ECONNREFUSED 127.0.0.1:1\n',
    ]);
  });
});
