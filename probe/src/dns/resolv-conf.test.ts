import { describe, expect, it } from 'vitest';
import { RESOLV_CONF_DEFAULTS, parseResolvConf, resolvConfProblem, type ResolvConf } from './resolv-conf.ts';

const POD_RESOLV_CONF = `search default.svc.cluster.local svc.cluster.local cluster.local
nameserver 10.96.0.10
options ndots:5
`;

describe('parseResolvConf', () => {
  it('reads what kubelet writes into a pod', () => {
    expect(parseResolvConf(POD_RESOLV_CONF)).toEqual({
      ...RESOLV_CONF_DEFAULTS,
      nameservers: ['10.96.0.10'],
      search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      ndots: 5,
    });
  });

  it.each<[string, string, Partial<ResolvConf>]>([
    ['an empty file gives glibc defaults', '', {}],
    ['no name server means 127.0.0.1', 'search a.b\n', { search: ['a.b'] }],
    [
      'keeps at most three name servers',
      'nameserver 1.1.1.1\nnameserver 2.2.2.2\nnameserver 3.3.3.3\nnameserver 4.4.4.4',
      { nameservers: ['1.1.1.1', '2.2.2.2', '3.3.3.3'] },
    ],
    [
      'accepts IPv6 name servers, with a zone',
      'nameserver ::1\nnameserver fe80::1%eth0',
      { nameservers: ['::1', 'fe80::1%eth0'] },
    ],
    [
      'ignores name servers that are not IP literals',
      'nameserver dns.example\nnameserver 10.0.0.1:53\nnameserver 10.0.0.2',
      { nameservers: ['10.0.0.2'] },
    ],
    [
      'ignores a name server line without address',
      'nameserver\nnameserver 10.0.0.2',
      { nameservers: ['10.0.0.2'] },
    ],
    [
      'skips # and ; comments, also after values',
      '# c\n; c\nnameserver 10.0.0.1 # trailing\nsearch a.b ; x',
      { nameservers: ['10.0.0.1'], search: ['a.b'] },
    ],
    [
      'handles CRLF and tabs',
      'nameserver\t10.0.0.1\r\nsearch\ta.b\tc.d\r\n',
      { nameservers: ['10.0.0.1'], search: ['a.b', 'c.d'] },
    ],
    [
      'the last of domain and search wins (search last)',
      'domain x.y\nsearch a.b c.d',
      { search: ['a.b', 'c.d'] },
    ],
    ['the last of domain and search wins (domain last)', 'search a.b c.d\ndomain x.y', { search: ['x.y'] }],
    [
      'drops trailing dots and root entries from the search list',
      'search a.b. . c.d..',
      { search: ['a.b', 'c.d'] },
    ],
    [
      'reads ndots, timeout and attempts',
      'options ndots:2 timeout:1 attempts:4',
      { ndots: 2, timeoutMs: 1_000, attempts: 4 },
    ],
    [
      'clamps ndots to 15, timeout to 30s, attempts to 5',
      'options ndots:40 timeout:99 attempts:9',
      { ndots: 15, timeoutMs: 30_000, attempts: 5 },
    ],
    ['accepts ndots:0', 'options ndots:0', { ndots: 0 }],
    ['ignores a zero timeout or attempts', 'options timeout:0 attempts:0', {}],
    ['ignores malformed option values', 'options ndots:x timeout:-1 attempts:2.5 ndots', {}],
    [
      'reads rotate, use-vc and edns0',
      'options rotate use-vc edns0',
      { rotate: true, useTcp: true, edns0: true },
    ],
    ['a later options line overrides an earlier one', 'options ndots:2\noptions ndots:3', { ndots: 3 }],
    [
      'ignores unknown keywords and options',
      'sortlist 10.0.0.0/8\nlookup file bind\noptions single-request inet6',
      {},
    ],
    [
      'does not crash on binary garbage',
      '\u0000\u0001nameserver\u0000\nsearch \u00ff',
      { search: ['\u00ff'] },
    ],
  ])('%s', (_name, text, expected) => {
    expect(parseResolvConf(text)).toEqual({ ...RESOLV_CONF_DEFAULTS, ...expected });
  });
});

describe('resolvConfProblem', () => {
  it.each([
    [
      "a pod's resolv.conf",
      'nameserver 10.96.0.10\nsearch default.svc.cluster.local svc.cluster.local\noptions ndots:5\n',
      undefined,
    ],
    ['an empty file (glibc asks 127.0.0.1)', '', undefined],
    ['comments only', '# generated\n; nothing else\n', undefined],
    ['options alone', 'options timeout:1\n', undefined],
    ['one good name server among bad ones', 'nameserver dns.local\nnameserver 10.0.0.1\n', undefined],
    ['an IPv6 name server with a zone', 'nameserver fe80::1%eth0\n', undefined],
    ['unknown lines beside known ones', 'frobnicate yes\nnameserver 10.0.0.1\n', undefined],
    ['binary data', '\u0000\u0001ELF\u0002', 'is not a text file'],
    ['bytes that are not UTF-8', 'nameserver 10.0.0.1\n\uFFFD\uFFFD', 'is not a text file'],
    [
      'some other file',
      'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n',
      'has no resolv.conf line (nameserver, search, domain, options)',
    ],
    ['name servers by name only', 'nameserver dns.local\nnameserver\n', 'names no name server by IP address'],
  ])('%s', (_name, text, expected) => {
    expect(resolvConfProblem(text)).toBe(expected);
  });
});
