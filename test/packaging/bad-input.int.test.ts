/**
 * Bad input at the real edge of the three programs: each production bundle, run as the image runs
 * it, answers a bad flag, kubeconfig, resolv.conf or bind address with one plain line on stderr
 * (no JSON log, no stack) and exit code 2, and it does so before it sends anything to an API
 * server: the kubeconfigs point at a loopback server that records every request. The operator
 * commands answer API failures with one plain line too, against a real control plane: exit 2 when
 * the API server refuses their input as invalid, 1 when it cannot be reached or refuses the
 * credentials.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { clusterKind, type Cluster } from '@kf/api';
import { ResourceClient } from '@kf/kube';
import { PRODUCTION_NODE_FLAGS } from '@kf/runtime/bundle';
import { freePort, startFederation, type LocalFederation } from '@kf/testing';
import { bundleAgent } from '../../agent/src/build/bundle.ts';
import { bundleControlPlane } from '../../controlplane/src/build/bundle.ts';
import { bundleProbe } from '../../probe/src/build/bundle.ts';

type Program = 'agent' | 'probe' | 'controlplane';

let scratch: string;
let api: Server;
let apiUrl: string;
const requests: string[] = [];
let busy: TcpServer;
let busyAt: string;
const bundles = {} as Record<Program, string>;
const file = (name: string): string => join(scratch, name);

function kubeconfig(server: string, currentContext: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: fake\n  cluster: {server: '${server}', insecure-skip-tls-verify: true}`,
    'users:',
    '- name: u\n  user: {token: t}',
    'contexts:',
    '- name: fake\n  context: {cluster: fake, user: u}',
    '- name: dangling\n  context: {cluster: nowhere, user: u}',
    `current-context: ${currentContext}`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kf-bad-input-'));
  // One bundle at a time: the machine is small.
  bundles.agent = (await bundleAgent(file('agent.mjs'))).outfile;
  bundles.probe = (await bundleProbe(file('probe.mjs'))).outfile;
  bundles.controlplane = (await bundleControlPlane(file('controlplane.mjs'))).outfile;
  api = createServer((req: IncomingMessage, res) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  busy = createTcpServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyAt = `127.0.0.1:${(busy.address() as AddressInfo).port}`;
  await writeFile(file('good'), kubeconfig(apiUrl, 'fake'));
  await writeFile(file('dangling'), kubeconfig(apiUrl, 'dangling'));
  await writeFile(file('no-context'), kubeconfig(apiUrl, '""'));
  await writeFile(file('garbage'), 'clusters: [\n  - {\n');
  await writeFile(file('resolv.conf'), 'nameserver 127.0.0.1\n');
  await writeFile(file('passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
  await mkdir(file('resolv.d'));
}, 240_000);

afterAll(async () => {
  await new Promise((resolve) => api.close(resolve));
  await new Promise((resolve) => busy.close(resolve));
  await rm(scratch, { recursive: true, force: true });
});

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a bundle as the image does, with an environment of our own (no KF_ or KUBECONFIG leaking in). */
function runBundle(
  program: Program,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...PRODUCTION_NODE_FLAGS, bundles[program], ...args],
      {
        cwd: scratch,
        env: { PATH: process.env.PATH ?? '', HOME: scratch, ...env },
        timeout: 30_000,
        killSignal: 'SIGKILL', // a program that did not stop on its own has failed the case already
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Substitutes the files and addresses of this run into a case's arguments. */
function expand(args: readonly string[]): string[] {
  return args.map((a) => a.replaceAll('$DIR', scratch).replaceAll('$BUSY', busyAt));
}

const PROBE = ['--node-name=n1', '--cluster-name=member1', '--resolv-conf=$DIR/resolv.conf'];
const AGENT_RUN = [
  'run',
  '--cluster-name=member1',
  '--health-probe-bind-address=0',
  '--metrics-bind-address=0',
];

const CASES: readonly (readonly [string, Program, readonly string[], RegExp])[] = [
  // Durations beyond a Node timer's range
  [
    'agent: a lease of 700h',
    'agent',
    [...AGENT_RUN, '--cluster-lease-duration=700h'],
    /--cluster-lease-duration .*"700h" is too long: the maximum is 596h31m23\.647s/,
  ],
  [
    'probe: a period of 700h',
    'probe',
    [...PROBE, '--karmada-kubeconfig=$DIR/good', '--period=700h'],
    /"700h" is too long: the maximum is 596h31m23\.647s/,
  ],
  [
    'control plane: a monitor period of 700h',
    'controlplane',
    ['run', '--cluster-monitor-period=700h'],
    /"700h" is too long: the maximum is 596h31m23\.647s/,
  ],
  // Arguments
  [
    'agent: condition set --cluster=Bad_Name',
    'agent',
    [
      'condition',
      'set',
      '--cluster=Bad_Name',
      '--type=T',
      '--status=True',
      '--reason=R',
      '--karmada-kubeconfig=$DIR/good',
    ],
    /^invalid configuration: --cluster "Bad_Name" must be a DNS label/,
  ],
  [
    "control plane: explain ''",
    'controlplane',
    ['explain', '', '--kubeconfig=$DIR/good'],
    /^invalid configuration: <binding> is empty/,
  ],
  // Kubeconfigs
  [
    'agent: a missing control-plane kubeconfig',
    'agent',
    [...AGENT_RUN, '--karmada-kubeconfig=$DIR/missing', '--kubeconfig=$DIR/good'],
    /^invalid configuration: control plane kubeconfig: cannot load kubeconfig .*missing: ENOENT/,
  ],
  [
    'agent: a garbage member kubeconfig',
    'agent',
    [...AGENT_RUN, '--karmada-kubeconfig=$DIR/good', '--kubeconfig=$DIR/garbage'],
    /^invalid configuration: member kubeconfig: cannot load kubeconfig .*garbage: /,
  ],
  [
    'agent: a control-plane context that does not exist',
    'agent',
    [...AGENT_RUN, '--karmada-kubeconfig=$DIR/good', '--karmada-context=nope', '--kubeconfig=$DIR/good'],
    /^invalid configuration: control plane kubeconfig: kubeconfig .*good has no context nope$/,
  ],
  [
    'agent: a member context naming no cluster',
    'agent',
    [...AGENT_RUN, '--karmada-kubeconfig=$DIR/good', '--kubeconfig=$DIR/dangling'],
    /^invalid configuration: member kubeconfig: kubeconfig .*dangling names no cluster for its current context$/,
  ],
  [
    'agent status: a garbage kubeconfig',
    'agent',
    ['status', '--cluster=member1', '--karmada-kubeconfig=$DIR/garbage'],
    /^invalid configuration: control plane kubeconfig: cannot load kubeconfig/,
  ],
  [
    'probe: a control-plane context that does not exist',
    'probe',
    [...PROBE, '--karmada-kubeconfig=$DIR/good', '--karmada-context=nope', '--kubeconfig=$DIR/good'],
    /^invalid configuration: control plane kubeconfig: kubeconfig .*good has no context nope$/,
  ],
  [
    'control plane: a garbage kubeconfig',
    'controlplane',
    ['run', '--kubeconfig=$DIR/garbage'],
    /^invalid configuration: control plane kubeconfig: cannot load kubeconfig .*garbage: /,
  ],
  [
    'control plane: a missing kubeconfig',
    'controlplane',
    ['run', '--kubeconfig=$DIR/missing'],
    /^invalid configuration: control plane kubeconfig: cannot load kubeconfig .*missing: ENOENT/,
  ],
  [
    'control plane explain: a dangling context',
    'controlplane',
    ['explain', 'default/web', '--kubeconfig=$DIR/dangling'],
    /names no cluster for its current context$/,
  ],
  // resolv.conf
  [
    'probe: --resolv-conf a directory',
    'probe',
    [
      '--node-name=n1',
      '--cluster-name=member1',
      '--karmada-kubeconfig=$DIR/good',
      '--kubeconfig=$DIR/good',
      '--resolv-conf=$DIR/resolv.d',
    ],
    /^invalid configuration: --resolv-conf .*resolv\.d is a directory, not a file \(EISDIR\)$/,
  ],
  [
    'probe: --resolv-conf another file',
    'probe',
    [
      '--node-name=n1',
      '--cluster-name=member1',
      '--karmada-kubeconfig=$DIR/good',
      '--kubeconfig=$DIR/good',
      '--resolv-conf=$DIR/passwd',
    ],
    /^invalid configuration: --resolv-conf .*passwd has no resolv\.conf line/,
  ],
  // Bind addresses in use
  [
    'agent: /metrics address in use',
    'agent',
    [
      'run',
      '--cluster-name=member1',
      '--karmada-kubeconfig=$DIR/good',
      '--kubeconfig=$DIR/good',
      '--metrics-bind-address=$BUSY',
      '--health-probe-bind-address=0',
    ],
    /^invalid configuration: --metrics-bind-address 127\.0\.0\.1:\d+: the address is already in use \(EADDRINUSE\)$/,
  ],
  [
    'probe: health address in use',
    'probe',
    [
      ...PROBE,
      '--karmada-kubeconfig=$DIR/good',
      '--kubeconfig=$DIR/good',
      '--metrics-bind-address=0',
      '--health-probe-bind-address=$BUSY',
    ],
    /^invalid configuration: --health-probe-bind-address 127\.0\.0\.1:\d+: the address is already in use \(EADDRINUSE\)$/,
  ],
  [
    'control plane: /metrics address in use',
    'controlplane',
    ['run', '--kubeconfig=$DIR/good', '--metrics-bind-address=$BUSY'],
    /^invalid configuration: --metrics-bind-address 127\.0\.0\.1:\d+: the address is already in use \(EADDRINUSE\)$/,
  ],
];

/** One plain line on stderr: no JSON log, no stack trace. */
function expectOnePlainLine(out: Outcome, line: RegExp): void {
  const lines = out.stderr.trim().split('\n');
  expect(lines, out.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(out.stderr).not.toMatch(/^\s*\{|\n\s+at /);
}

describe('bad input to the production bundles', () => {
  it.each(CASES)('%s: one plain line, exit code 2', async (_name, program, args, line) => {
    const out = await runBundle(program, expand(args));
    expectOnePlainLine(out, line);
    expect(out.code, out.stderr).toBe(2);
  });

  it('merges every file of $KUBECONFIG, as client-go does', async () => {
    // The first file has no current context; the second has one. Using only the first fails on
    // the kubeconfig; merging both gets as far as the /metrics address.
    const env = { KUBECONFIG: `${file('missing')}:${file('no-context')}:${file('good')}` };
    for (const [program, args] of [
      ['controlplane', ['run', '--metrics-bind-address=$BUSY']],
      [
        'agent',
        ['run', '--cluster-name=member1', '--metrics-bind-address=$BUSY', '--health-probe-bind-address=0'],
      ],
    ] as const) {
      const out = await runBundle(program, expand(args), env);
      expect(out.stderr.trim(), program).toMatch(
        /^invalid configuration: --metrics-bind-address .*EADDRINUSE/,
      );
      expect(out.code).toBe(2);
    }
  });

  it('left the API server untouched', () => {
    expect(requests).toEqual([]);
  });

  it('reaches the API server once every check passed (the recorder works)', async () => {
    const out = await runBundle('agent', [
      'status',
      '--cluster=member1',
      `--karmada-kubeconfig=${file('good')}`,
    ]);
    expect(out.code).toBe(1);
    expect(requests).toContain('GET /apis/cluster.karmada.io/v1alpha1/clusters/member1');
  });

  it('a service that fails once running logs it and prints one plain line too', async () => {
    // The recorder answers 404 to everything, as a control plane without Karmada's CRDs would:
    // registration cannot go on, and the agent stops.
    const out = await runBundle('agent', [
      'run',
      '--cluster-name=member1',
      `--karmada-kubeconfig=${file('good')}`,
      `--kubeconfig=${file('good')}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
    ]);
    expectOnePlainLine(
      out,
      /^error: agent failed: cannot register Cluster member1 in the Karmada control plane: HTTP 404 NotFound$/,
    );
    expect(out.code).toBe(1);
    // The log keeps the failure, with its stack, for whoever collects it.
    const fatal = out.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string; err?: { stack?: string } })
      .find((entry) => entry.level === 'fatal');
    expect(fatal?.msg).toBe('agent failed');
    expect(fatal?.err?.stack).toMatch(/\n\s+at /);
  });
});

/** `$CP`: the control plane's admin kubeconfig; `$REFUSED`: its server with a token it refuses; `$GONE`: nothing listens. */
const SET = ['condition', 'set', '--cluster=member1', '--status=True'];
interface ApiCase {
  readonly name: string;
  readonly program: Program;
  readonly args: readonly string[];
  readonly code: number;
  readonly line: RegExp;
}
const API_CASES: readonly ApiCase[] = [
  {
    name: 'control plane explain: an unreachable API server',
    program: 'controlplane',
    args: ['explain', 'default/web', '--kubeconfig=$GONE'],
    code: 1,
    line: /^error: cannot reach the API server: connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
  },
  {
    name: 'control plane explain: credentials the API server refuses',
    program: 'controlplane',
    args: ['explain', 'default/web', '--kubeconfig=$REFUSED'],
    code: 1,
    line: /^error: the API server refused the credentials of the kubeconfig: Unauthorized$/,
  },
  {
    name: 'control plane explain: a binding the API server does not have',
    program: 'controlplane',
    args: ['explain', 'default/web', '--kubeconfig=$CP'],
    code: 2,
    line: /^invalid configuration: no ResourceBinding default\/web, nor one for a template named so$/,
  },
  {
    name: 'agent condition set: a reason the API server refuses',
    program: 'agent',
    args: [...SET, '--type=Maintenance', '--reason=Not a reason', '--karmada-kubeconfig=$CP'],
    code: 2,
    line: /^error: the API server refused the request as invalid: Cluster\.cluster\.karmada\.io "member1" is invalid: status\.conditions\[0\]\.reason: Invalid value: "Not a reason"/,
  },
  {
    name: 'agent condition set: a type the API server refuses',
    program: 'agent',
    args: [...SET, '--type=not a type!', '--reason=Planned', '--karmada-kubeconfig=$CP'],
    code: 2,
    line: /^error: the API server refused the request as invalid: Cluster\.cluster\.karmada\.io "member1" is invalid: status\.conditions\[0\]\.type: Invalid value: "not a type!"/,
  },
  {
    name: 'agent condition set: an unreachable API server',
    program: 'agent',
    args: [...SET, '--type=Maintenance', '--reason=Planned', '--karmada-kubeconfig=$GONE'],
    code: 1,
    line: /^error: cannot reach the API server: connect ECONNREFUSED/,
  },
  {
    name: 'agent condition clear: credentials the API server refuses',
    program: 'agent',
    args: ['condition', 'clear', '--cluster=member1', '--type=Maintenance', '--karmada-kubeconfig=$REFUSED'],
    code: 1,
    line: /^error: the API server refused the credentials of the kubeconfig: Unauthorized$/,
  },
  {
    name: 'agent status: a Cluster the API server does not have',
    program: 'agent',
    args: ['status', '--cluster=member9', '--karmada-kubeconfig=$CP'],
    code: 1,
    line: /^error: clusters\.cluster\.karmada\.io "member9" not found$/,
  },
];

describe('API failures of the operator commands, against a real control plane', () => {
  let fed: LocalFederation;
  const paths: Record<string, string> = {};

  beforeAll(async () => {
    fed = await startFederation({ members: 0 });
    const admin = fed.controlPlane.kubeConfig();
    await new ResourceClient<Cluster>(admin, clusterKind).create({
      metadata: { name: 'member1' },
      spec: { syncMode: 'Pull' },
    });
    const refused = new KubeConfig();
    const cluster = admin.getCurrentCluster();
    if (cluster === null) throw new Error('the control plane kubeconfig has no cluster');
    refused.loadFromOptions({
      clusters: [cluster],
      users: [{ name: 'nobody', token: 'not-a-token-the-server-issued' }],
      contexts: [{ name: 'refused', cluster: cluster.name, user: 'nobody' }],
      currentContext: 'refused',
    });
    paths.$REFUSED = file('refused');
    await writeFile(paths.$REFUSED, refused.exportConfig());
    paths.$GONE = file('gone');
    await writeFile(paths.$GONE, kubeconfig(`http://127.0.0.1:${await freePort()}`, 'fake'));
    paths.$CP = fed.controlPlane.kubeconfigPath;
  }, 240_000);

  afterAll(async () => {
    await (fed as LocalFederation | undefined)?.destroy();
  });

  it.each(API_CASES.map((c) => [`${c.name}: one plain line, exit code ${c.code}`, c] as const))(
    '%s',
    async (_title, { program, args, code, line }) => {
      const out = await runBundle(
        program,
        args.map((a) => a.replace(/\$(CP|REFUSED|GONE)/, (key) => paths[key] ?? key)),
      );
      expectOnePlainLine(out, line);
      expect(out.code, out.stderr).toBe(code);
    },
  );

  it('left the Cluster without the conditions the API server refused', async () => {
    const cluster = await new ResourceClient<Cluster>(fed.controlPlane.kubeConfig(), clusterKind).get(
      'member1',
    );
    expect(cluster.status?.conditions ?? []).toEqual([]);
  });
});
