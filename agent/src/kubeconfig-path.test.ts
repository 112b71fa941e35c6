import { describe, expect, it } from 'vitest';
import {
  karmadaKubeconfigPath,
  memberKubeconfigPath,
  type KubeconfigSource,
  type PathEnvironment,
} from './kubeconfig-path.ts';

const env = (vars: Record<string, string>, files: string[] = []): PathEnvironment => ({
  env: vars,
  home: '/home/a',
  exists: (p) => files.includes(p),
});
const pod = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

describe('karmadaKubeconfigPath', () => {
  it.each<[string, string, PathEnvironment, KubeconfigSource]>([
    ['the flag wins', '/k', env({ KUBECONFIG: '/e' }, ['/e']), '/k'],
    ['then every file of $KUBECONFIG, to be merged', '', env({ KUBECONFIG: '/e:/f' }, ['/e']), ['/e', '/f']],
    ['when one of them exists', '', env({ KUBECONFIG: ':/e::/f' }, ['/f']), ['/e', '/f']],
    [
      'not ~/.kube/config when $KUBECONFIG is set',
      '',
      env({ ...pod, KUBECONFIG: '/e' }, ['/home/a/.kube/config']),
      undefined,
    ],
    ['then ~/.kube/config', '', env({}, ['/home/a/.kube/config']), '/home/a/.kube/config'],
    ['then in-cluster', '', env(pod), undefined],
  ])('%s', (_name, flag, e, expected) => {
    expect(karmadaKubeconfigPath(flag, e)).toEqual(expected);
  });

  it('fails when nothing applies', () => {
    expect(() => karmadaKubeconfigPath('', env({}))).toThrow(/no control-plane kubeconfig/);
  });
});

describe('memberKubeconfigPath', () => {
  it.each<[string, string, PathEnvironment, KubeconfigSource]>([
    ['the flag wins', '/m', env(pod), '/m'],
    ['then $KUBECONFIG', '', env({ ...pod, KUBECONFIG: '/e' }), ['/e']],
    ['every file of it', '', env({ KUBECONFIG: '/e:/f' }), ['/e', '/f']],
    ['then in-cluster before ~/.kube/config', '', env(pod, ['/home/a/.kube/config']), undefined],
    ['then ~/.kube/config', '', env({}, ['/home/a/.kube/config']), '/home/a/.kube/config'],
  ])('%s', (_name, flag, e, expected) => {
    expect(memberKubeconfigPath(flag, e)).toEqual(expected);
  });

  it('fails when nothing applies', () => {
    expect(() => memberKubeconfigPath('', env({}))).toThrow(/no member kubeconfig/);
  });
});
