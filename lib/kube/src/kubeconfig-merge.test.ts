import { describe, expect, it } from 'vitest';
import { kubeconfigEnvPaths, mergeKubeConfigs, type KubeConfigParts } from './kubeconfig-merge.ts';

const cluster = (name: string, server: string) => ({ name, server, skipTLSVerify: false });
const user = (name: string, token: string) => ({ name, token });
const context = (name: string, c: string, u: string) => ({ name, cluster: c, user: u });
const file = (over: Partial<KubeConfigParts>): KubeConfigParts => ({
  clusters: [],
  users: [],
  contexts: [],
  ...over,
});

describe('mergeKubeConfigs', () => {
  it.each<[string, KubeConfigParts[], Partial<Required<KubeConfigParts>>]>([
    ['nothing from no files', [], { clusters: [], users: [], contexts: [], currentContext: '' }],
    [
      'one file as it is',
      [file({ clusters: [cluster('a', 'https://a')], currentContext: 'x' })],
      { clusters: [cluster('a', 'https://a')], currentContext: 'x' },
    ],
    [
      'names from every file',
      [
        file({ clusters: [cluster('a', 'https://a')], users: [user('ua', 't1')] }),
        file({ clusters: [cluster('b', 'https://b')], contexts: [context('cb', 'b', 'ua')] }),
      ],
      {
        clusters: [cluster('a', 'https://a'), cluster('b', 'https://b')],
        users: [user('ua', 't1')],
        contexts: [context('cb', 'b', 'ua')],
      },
    ],
    [
      'the first file wins a name given twice',
      [
        file({ clusters: [cluster('a', 'https://first')], users: [user('u', 'first')] }),
        file({ clusters: [cluster('a', 'https://second')], users: [user('u', 'second')] }),
      ],
      { clusters: [cluster('a', 'https://first')], users: [user('u', 'first')] },
    ],
    [
      'the first file that sets current-context chooses it',
      [
        file({}),
        file({ currentContext: '' }),
        file({ currentContext: 'second' }),
        file({ currentContext: 'third' }),
      ],
      { currentContext: 'second' },
    ],
  ])('takes %s', (_name, files, expected) => {
    expect(mergeKubeConfigs(files)).toMatchObject(expected);
  });
});

describe('kubeconfigEnvPaths', () => {
  it.each<[string | undefined, string[]]>([
    [undefined, []],
    ['', []],
    ['/a', ['/a']],
    ['/a:/b', ['/a', '/b']],
    [':/a::/b:', ['/a', '/b']],
  ])('splits %j', (value, paths) => {
    expect(kubeconfigEnvPaths(value)).toEqual(paths);
  });
});
