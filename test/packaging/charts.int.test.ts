/**
 * The Helm charts: `helm lint` is clean, what they render holds the security and availability
 * promises of their READMEs, every flag they pass is one the program's --help lists, the files
 * they copy from deploy/ are current, and the API servers of a local federation accept what they
 * render (`kubectl apply --dry-run=server`: the control-plane chart on the control plane, the
 * member chart on a member, and the objects both render for the Prometheus Operator and Grafana on a
 * member holding the operator's CRDs).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAllYaml, loadYaml } from '@kubernetes/client-node';
import {
  KarmadaControlPlane,
  eventually,
  kubeBinaries,
  startFederation,
  type LocalFederation,
} from '@kf/testing';
import { DEFAULT_WORKLOAD_RULES, MEMBER_STATUS_RULES } from '@kf/api';
import { PRODUCTION_NODE_FLAGS } from '../../agent/src/build/bundle.ts';
import { credentialNames } from '@kf/member';
import { CONTROLPLANE_NODE_FLAGS } from '@kf/runtime';
import { PROBE_NODE_FLAGS } from '../../probe/src/build/bundle.ts';
import {
  CONTROLPLANE_CHART as CONTROLPLANE,
  KUBE_VERSION,
  MEMBER_CHART as MEMBER,
  ROOT as root,
  helmBinary,
  prometheusOperatorCrdDir,
  renderChart,
  run,
} from './helm.ts';

let helm: string;
const render = (chart: string, ...values: string[]): Promise<string> => renderChart(helm, chart, ...values);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
}
interface Container {
  name: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  securityContext?: Record<string, unknown>;
  containers: Container[];
  tolerations?: Record<string, unknown>[];
  automountServiceAccountToken?: boolean;
  volumes?: { name: string; secret?: { secretName: string } }[];
}
const objects = (yaml: string): K8sObject[] =>
  (loadAllYaml(yaml) as (K8sObject | null)[]).filter((o) => o !== null);
const podSpecOf = (o: K8sObject): PodSpec => (o.spec as { template: { spec: PodSpec } }).template.spec;
const workloads = (objs: K8sObject[]) =>
  objs.filter((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet');
const find = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind);
const crdNames = (yaml: string): string[] =>
  find(objects(yaml), 'CustomResourceDefinition').map((o) => o.metadata.name);

/**
 * The control-plane chart's CRDs as `helm template` renders them; with `server` (a kubeconfig),
 * with `--dry-run=server`, so that `lookup` reads that API server as an install would.
 */
const renderCrds = (server?: string): Promise<string> =>
  run(helm, [
    'template',
    'kf',
    CONTROLPLANE,
    '-n',
    'karmada-system',
    '--kube-version',
    KUBE_VERSION,
    ...(server === undefined ? [] : ['--dry-run=server', '--kubeconfig', server]),
    '--show-only',
    'templates/crds.yaml',
  ]);

const MEMBER_VALUES = ['clusterName=member1', 'karmadaKubeconfig.kubeconfig=apiVersion: v1'];
const CONTROLPLANE_VALUES = ['karmadaKubeconfig.kubeconfig=apiVersion: v1'];

/** What the charts render for the Prometheus Operator and Grafana's sidecar, all off by default. */
const MONITORING_KINDS = ['Service', 'ServiceMonitor', 'PodMonitor', 'PrometheusRule', 'ConfigMap'];
const MEMBER_MONITORING = [
  'monitoring.service.enabled=true',
  'monitoring.serviceMonitor.enabled=true',
  'monitoring.podMonitor.enabled=true',
];
const CONTROLPLANE_MONITORING = [
  'monitoring.service.enabled=true',
  'monitoring.serviceMonitor.enabled=true',
  'monitoring.prometheusRule.enabled=true',
  'monitoring.dashboards.enabled=true',
];
/** The control-plane chart's host-cluster half (README, "Two API servers"): no Karmada API objects. */
const HOST_ONLY = [
  'crds.install=false',
  'rbac.create=false',
  'agentAccess.create=false',
  'defaultTaintPolicy.create=false',
];

/** Long flags a program's --help lists. */
async function helpFlags(...args: string[]): Promise<Set<string>> {
  const out = await run('node', args);
  return new Set([...out.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1] ?? ''));
}
/** The `--flag` of every `--flag=value` or `--flag` argument after the bundle's path. */
function flagsPassed(args: readonly string[]): { bundle: string; flags: string[] } {
  const i = args.findIndex((a) => a.endsWith('.mjs'));
  return {
    bundle: args[i] ?? '',
    flags: args.slice(i + 1).flatMap((a) => (a.startsWith('--') ? [a.split('=')[0] ?? a] : [])),
  };
}

beforeAll(async () => {
  helm = await helmBinary();
});

describe('helm lint', () => {
  it('is clean for both charts (--strict)', async () => {
    for (const [chart, values] of [
      [MEMBER, MEMBER_VALUES],
      [CONTROLPLANE, []],
    ] as const) {
      const out = await run(helm, ['lint', '--strict', chart, ...values.flatMap((s) => ['--set', s])]);
      expect(out).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(out).not.toMatch(/\[(WARNING|ERROR)\]/);
    }
  });
});

describe('files copied from deploy/', () => {
  it('are the same as deploy/ (copy them again when these differ)', async () => {
    const pairs: [string, string][] = [
      ['deploy/controlplane/rbac.yaml', 'files/controlplane-rbac.yaml'],
      ['deploy/controlplane/cluster-taint-policy.yaml', 'files/cluster-taint-policy.yaml'],
      ['deploy/agent/rbac.yaml', 'files/agent-rbac.yaml'],
      ['deploy/agent/validating-admission-policy.yaml', 'files/agent-validating-admission-policy.yaml'],
      ['deploy/agent/karmada-agent.yaml', 'files/agent-karmada-agent.yaml'],
    ];
    const crds = (await readdir(join(root, 'deploy/crds'))).filter((f) => f.endsWith('.yaml'));
    expect((await readdir(join(CONTROLPLANE, 'files/crds'))).sort()).toEqual(crds.sort());
    for (const f of crds) pairs.push([`deploy/crds/${f}`, `files/crds/${f}`]);
    const rules = (await readdir(join(root, 'deploy/prometheus'))).filter((f) => f.endsWith('.rules.yaml'));
    expect((await readdir(join(CONTROLPLANE, 'files/prometheus'))).sort()).toEqual(rules.sort());
    for (const f of rules) pairs.push([`deploy/prometheus/${f}`, `files/prometheus/${f}`]);
    const dashboards = (await readdir(join(root, 'deploy/grafana'))).filter((f) => f.endsWith('.json'));
    expect((await readdir(join(CONTROLPLANE, 'files/grafana'))).sort()).toEqual(dashboards.sort());
    for (const f of dashboards) pairs.push([`deploy/grafana/${f}`, `files/grafana/${f}`]);
    for (const [source, copy] of pairs) {
      expect(await readFile(join(CONTROLPLANE, copy), 'utf8'), copy).toBe(
        await readFile(join(root, source), 'utf8'),
      );
    }
  });
});

describe('rendered member chart', () => {
  it('runs the agent with leader election and a PodDisruptionBudget only when replicated', async () => {
    const two = objects(await render(MEMBER, ...MEMBER_VALUES));
    const agent = find(two, 'Deployment')[0]!;
    expect(flagsPassed(podSpecOf(agent).containers[0]!.args ?? []).flags).toContain('--leader-elect');
    expect(podSpecOf(agent).containers[0]!.args).toContain('--leader-elect=true');
    expect(find(two, 'PodDisruptionBudget')).toHaveLength(1);
    const one = objects(await render(MEMBER, ...MEMBER_VALUES, 'agent.replicas=1'));
    expect(find(one, 'PodDisruptionBudget')).toHaveLength(0);
    await expect(
      render(MEMBER, ...MEMBER_VALUES, 'agent.replicas=2', 'agent.leaderElection.enabled=false'),
    ).rejects.toThrow(/needs agent.leaderElection.enabled/);
  });

  it('runs the probe on every node: all taints tolerated, NODE_NAME from the downward API', async () => {
    const ds = find(objects(await render(MEMBER, ...MEMBER_VALUES)), 'DaemonSet')[0]!;
    const spec = podSpecOf(ds);
    expect(spec.tolerations).toContainEqual({ operator: 'Exists' });
    expect(spec.containers[0]!.env).toContainEqual({
      name: 'NODE_NAME',
      valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } },
    });
  });

  it('mounts the Karmada kubeconfig read-only from its own or an existing Secret', async () => {
    const own = objects(await render(MEMBER, ...MEMBER_VALUES));
    expect(find(own, 'Secret')).toHaveLength(1);
    const existing = objects(
      await render(
        MEMBER,
        'clusterName=member1',
        'karmadaKubeconfig.existingSecret=karmada-agent-kubeconfig',
      ),
    );
    expect(find(existing, 'Secret')).toHaveLength(0);
    for (const w of workloads(existing)) {
      const spec = podSpecOf(w);
      const volume = spec.volumes?.find((v) => v.name === 'karmada-kubeconfig');
      expect(volume?.secret?.secretName).toBe('karmada-agent-kubeconfig');
      expect(spec.containers[0]!.volumeMounts).toContainEqual({
        name: 'karmada-kubeconfig',
        mountPath: '/etc/karmada',
        readOnly: true,
      });
      expect(spec.containers[0]!.args).toContain('--karmada-kubeconfig=/etc/karmada/kubeconfig');
    }
  });

  it('grants the probe Leases only in its Lease namespace, and the agent its fence record only in its own', async () => {
    const objs = objects(await render(MEMBER, ...MEMBER_VALUES));
    const roles = find(objs, 'Role');
    expect(roles.map((r) => [r.metadata.name, r.metadata.namespace])).toEqual([
      ['kf-karmada-failover-member-agent-fence', 'karmada-system'],
      ['kf-karmada-failover-member-probe', 'karmada-system'],
    ]);
  });

  it('grants its programs no wildcard, bind, escalate or RBAC write; a role of every verb only for KubeCredentials', async () => {
    type Rule = { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; verbs: string[] };
    type Role = K8sObject & { rules: Rule[] };
    type Binding = K8sObject & {
      roleRef: { name: string };
      subjects: { name: string; namespace?: string }[];
    };
    const credentials = credentialNames('member1', 'karmada-cluster').clusterRole;
    const agentRole = 'kf-karmada-failover-member-agent';
    const clusterRolesOf = async (...values: string[]) =>
      find(objects(await render(MEMBER, ...MEMBER_VALUES, ...values)), 'ClusterRole') as Role[];
    const defaults = await clusterRolesOf();
    expect(defaults.map((r) => r.metadata.name).sort()).toEqual([
      agentRole,
      'kf-karmada-failover-member-probe',
    ]);
    for (const r of defaults) {
      for (const rule of r.rules) {
        for (const list of [rule.apiGroups ?? [], rule.resources ?? [], rule.verbs])
          expect(
            list.filter((x) => x.includes('*')),
            r.metadata.name,
          ).toEqual([]);
        for (const verb of ['bind', 'escalate', 'impersonate'])
          expect(rule.verbs, r.metadata.name).not.toContain(verb);
        expect(rule.apiGroups ?? [], r.metadata.name).not.toContain('rbac.authorization.k8s.io');
      }
    }
    // With the defaults the agent's role is its fixed rules and agent.workloadRules, nothing more:
    // no rule by name for credential ServiceAccounts, Secrets or roles.
    expect(defaults.find((r) => r.metadata.name === agentRole)?.rules.some((r) => r.resourceNames)).toBe(
      false,
    );
    // They are the rules a Push cluster's join grants the control plane: one list for both hosts.
    expect(defaults.find((r) => r.metadata.name === agentRole)?.rules).toEqual([
      ...MEMBER_STATUS_RULES,
      ...DEFAULT_WORKLOAD_RULES,
    ]);

    const reported = objects(
      await render(MEMBER, ...MEMBER_VALUES, 'agent.reportSecrets={KubeCredentials,KubeImpersonator}'),
    );
    const withCredentials = find(reported, 'ClusterRole') as Role[];
    expect(withCredentials.map((r) => r.metadata.name).sort()).toEqual([
      credentials,
      agentRole,
      'kf-karmada-failover-member-probe',
    ]);
    expect(withCredentials.find((r) => r.metadata.name === credentials)?.rules).toEqual([
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['get'] },
    ]);
    // The agent only reads that role and its binding, by name.
    const rbacRules = withCredentials
      .find((r) => r.metadata.name === agentRole)
      ?.rules.filter((r) => (r.apiGroups ?? []).includes('rbac.authorization.k8s.io'));
    expect(rbacRules).toEqual([
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles', 'clusterrolebindings'],
        resourceNames: [credentials],
        verbs: ['get'],
      },
    ]);
    expect(
      (find(reported, 'ClusterRoleBinding') as Binding[]).find((b) => b.roleRef.name === credentials)
        ?.subjects,
    ).toEqual([{ kind: 'ServiceAccount', name: 'karmada-member1', namespace: 'karmada-cluster' }]);
    // Without KubeCredentials there is no such role at all.
    expect(
      (await clusterRolesOf('agent.reportSecrets={KubeImpersonator}')).map((r) => r.metadata.name),
    ).not.toContain(credentials);
  });

  it('passes --report-secrets=None by default, and what agent.reportSecrets asks for', async () => {
    const agentArgs = async (...values: string[]) =>
      podSpecOf(
        workloads(objects(await render(MEMBER, ...MEMBER_VALUES, ...values))).find((w) =>
          w.metadata.name.endsWith('agent'),
        )!,
      ).containers[0]!.args ?? [];
    expect((await agentArgs()).filter((a) => a.startsWith('--report-secrets'))).toEqual([
      '--report-secrets=None',
    ]);
    expect(
      (await agentArgs('agent.reportSecrets={KubeCredentials,KubeImpersonator}')).filter((a) =>
        a.startsWith('--report-secrets'),
      ),
    ).toEqual(['--report-secrets=KubeCredentials,KubeImpersonator']);
  });

  it("grants what Karmada's karmada-agent reads only when asked, read-only", async () => {
    type Role = K8sObject & { rules: { verbs: string[] }[] };
    const names = (objs: K8sObject[]) => find(objs, 'ClusterRole').map((r) => r.metadata.name);
    expect(names(objects(await render(CONTROLPLANE)))).not.toContain('karmada-failover:karmada-agent');
    const objs = objects(await render(CONTROLPLANE, 'agentAccess.karmadaAgent=true'));
    const role = find(objs, 'ClusterRole').find(
      (r) => r.metadata.name === 'karmada-failover:karmada-agent',
    ) as Role | undefined;
    expect(role?.rules.flatMap((r) => r.verbs)).toEqual(['list', 'watch', 'list', 'watch']);
    expect(find(objs, 'ClusterRoleBinding').map((b) => b.metadata.name)).toContain(
      'karmada-failover:karmada-agent',
    );
  });

  it('confines the probe to its own Node with a ValidatingAdmissionPolicy on its ServiceAccount', async () => {
    type Policy = K8sObject & { spec: { matchConditions: { expression: string }[]; failurePolicy: string } };
    const objs = objects(await render(MEMBER, ...MEMBER_VALUES));
    const policy = find(objs, 'ValidatingAdmissionPolicy')[0] as Policy;
    expect(policy.spec.failurePolicy).toBe('Fail');
    expect(policy.spec.matchConditions[0]?.expression).toBe(
      "request.userInfo.username == 'system:serviceaccount:karmada-system:kf-karmada-failover-member-probe'",
    );
    expect(find(objs, 'ValidatingAdmissionPolicyBinding')[0]?.spec).toEqual({
      policyName: policy.metadata.name,
      validationActions: ['Deny'],
    });
  });

  it('passes every value as one argument, whatever it holds', async () => {
    const odd = 'a b #c: d';
    const objs = objects(
      await render(
        MEMBER,
        ...MEMBER_VALUES,
        `agent.cluster.provider=${odd}`,
        `agent.cluster.region=${odd}`,
        `karmadaKubeconfig.context=${odd}`,
        `agent.extraArgs={--cluster-success-threshold=1m #x}`,
        `probe.extraArgs={--stale-threshold=2m #y}`,
      ),
    );
    const args = (component: string) =>
      podSpecOf(workloads(objs).find((w) => w.metadata.name.endsWith(component))!).containers[0]!.args ?? [];
    expect(args('agent')).toEqual(
      expect.arrayContaining([
        `--cluster-provider=${odd}`,
        `--cluster-region=${odd}`,
        `--karmada-context=${odd}`,
        '--cluster-name=member1',
        '--cluster-success-threshold=1m #x',
      ]),
    );
    expect(args('probe')).toEqual(
      expect.arrayContaining([`--karmada-context=${odd}`, '--stale-threshold=2m #y']),
    );
    const cp = objects(
      await render(
        CONTROLPLANE,
        'karmadaKubeconfig.kubeconfig=apiVersion: v1',
        'controller.extraArgs={--x=1 #z}',
      ),
    );
    expect(podSpecOf(workloads(cp)[0]!).containers[0]!.args).toContain('--x=1 #z');
  });
});

describe('both charts', () => {
  it.each([
    ['agent', MEMBER, MEMBER_VALUES, 'agent'],
    ['probe', MEMBER, MEMBER_VALUES, 'probe'],
    ['controlplane', CONTROLPLANE, ['karmadaKubeconfig.kubeconfig=apiVersion: v1'], 'controller'],
  ] as const)(
    'let the %s bind /metrics and health to a chosen address',
    async (component, chart, values, key) => {
      const argsOf = async (...more: string[]) =>
        podSpecOf(
          workloads(objects(await render(chart, ...values, ...more))).find((w) =>
            w.metadata.name.endsWith(component),
          )!,
        ).containers[0]!.args ?? [];
      const defaults = await argsOf();
      expect(defaults.filter((a) => a.includes('bind-address'))).toEqual([
        '--metrics-bind-address=:8080',
        expect.stringMatching(/^--health-probe-bind-address=:\d+$/),
      ]);
      const chosen = await argsOf(
        `${key}.metricsBindAddress=127.0.0.1`,
        `${key}.healthProbeBindAddress=::`,
        `${key}.healthPort=9000`,
      );
      expect(chosen.filter((a) => a.includes('bind-address'))).toEqual([
        '--metrics-bind-address=127.0.0.1:8080',
        '--health-probe-bind-address=[::]:9000',
      ]);
    },
  );

  it.each([
    ['member', 'clusterName=Member_1', '/clusterName'],
    ['member', 'clusterName=m1 #x', '/clusterName'],
    ['member', 'agent.replicas=two', '/agent/replicas'],
    ['member', 'agent.clusterLeaseDuration=40', '/agent/clusterLeaseDuration'],
    ['member', 'agent.concurrentWorkSyncs=0', '/agent/concurrentWorkSyncs'],
    ['member', 'agent.reportSecrets={Kubeconfig}', '/agent/reportSecrets/0'],
    ['member', 'agent.logLevel=verbose', '/agent/logLevel'],
    ['member', 'agent.metricsPort=70000', '/agent/metricsPort'],
    ['member', 'agent.metricsBindAddress=0.0.0.0:8080 x', '/agent/metricsBindAddress'],
    ['member', 'agent.workloadRules[0].verbs={get,bind}', '/agent/workloadRules/0/verbs/1'],
    ['member', 'agent.workloadRules[0].verbs={get,*}', '/agent/workloadRules/0/verbs/1'],
    ['member', 'agent.workloadRules[0].resources={*}', '/agent/workloadRules/0/resources/0'],
    ['member', 'agent.workloadRules[0].resources={pods,*/status}', '/agent/workloadRules/0/resources/1'],
    ['member', 'agent.workloadRules[0].apiGroups={*}', '/agent/workloadRules/0/apiGroups/0'],
    ['member', 'agent.clusterNamespace=Karmada Cluster', '/agent/clusterNamespace'],
    ['member', 'agent.metricsBindAdress=127.0.0.1', '/agent'],
    ['member', 'probe.period=-5s', '/probe/period'],
    ['member', 'probe.aggregation=majority', '/probe/aggregation'],
    ['member', 'probe.failureQuorum=1.5', '/probe/failureQuorum'],
    ['member', 'probe.lookupNames={bad name}', '/probe/lookupNames/0'],
    ['member', 'image.pullPolicy=Sometimes', '/image'],
    ['controlplane', 'controller.clusterMonitorGracePeriod=forever', '/controller/clusterMonitorGracePeriod'],
    ['controlplane', 'controller.fleetGuard.pauseThreshold=2', '/controller/fleetGuard/pauseThreshold'],
    ['controlplane', 'controller.resourceEvictionBurst=0', '/controller/resourceEvictionBurst'],
    ['controlplane', 'controller.replicas=-1', '/controller/replicas'],
    ['controlplane', 'controller.healthProbeBindAddress=a b', '/controller/healthProbeBindAddress'],
    ['controlplane', 'rbac.subject.kind=Robot', '/rbac/subject/kind'],
    ['member', 'monitoring.serviceMonitor.interval=often', '/monitoring/serviceMonitor/interval'],
    ['member', 'monitoring.podMonitor.enable=true', '/monitoring/podMonitor'],
    ['member', 'monitoring.prometheusRule.enabled=true', '/monitoring'],
    ['controlplane', 'monitoring.dashboards.labelValue=not one', '/monitoring/dashboards/labelValue'],
    ['controlplane', 'monitoring.dashboards.label=-x', '/monitoring/dashboards/label'],
    ['controlplane', 'monitoring.prometheusRule.labels.team=a b', '/monitoring/prometheusRule/labels/team'],
  ] as const)('refuse a bad value, naming it: %s --set %s', async (chart, value, path) => {
    const base =
      chart === 'member' ? MEMBER_VALUES.filter((v) => v.split('=')[0] !== value.split('=')[0]) : [];
    const message = await render(chart === 'member' ? MEMBER : CONTROLPLANE, ...base, value).then(
      () => 'rendered',
      (e: unknown) => (e as Error).message,
    );
    expect(message).toContain("values don't meet the specifications of the schema");
    expect(message).toContain(`at '${path}'`);
  });

  it('run restricted pods', async () => {
    const all = [
      ...objects(await render(MEMBER, ...MEMBER_VALUES)),
      ...objects(await render(CONTROLPLANE, 'karmadaKubeconfig.kubeconfig=apiVersion: v1')),
    ];
    expect(workloads(all)).toHaveLength(3);
    for (const w of workloads(all)) {
      const spec = podSpecOf(w);
      expect(spec.securityContext, w.metadata.name).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(spec.securityContext?.runAsUser).toBeGreaterThan(0);
      for (const c of spec.containers) {
        expect(c.securityContext, `${w.metadata.name}/${c.name}`).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      }
    }
  });

  it('start each bundle with the Node flags its build defines', async () => {
    const all = [
      ...objects(await render(MEMBER, ...MEMBER_VALUES)),
      ...objects(await render(CONTROLPLANE, 'karmadaKubeconfig.kubeconfig=apiVersion: v1')),
    ];
    const argsOf = (bundle: string) =>
      workloads(all)
        .map((w) => podSpecOf(w).containers[0]!.args ?? [])
        .find((a) => a.includes(bundle));
    const nodeFlags = (args: string[] | undefined) =>
      args?.slice(
        1,
        args.findIndex((a) => a.endsWith('.mjs')),
      );
    expect(argsOf('dist/agent.mjs')?.[0]).toBe('node');
    expect(nodeFlags(argsOf('dist/agent.mjs'))).toEqual(PRODUCTION_NODE_FLAGS);
    expect(nodeFlags(argsOf('dist/probe.mjs'))).toEqual(PROBE_NODE_FLAGS);
    expect(nodeFlags(argsOf('dist/controlplane.mjs'))).toEqual(CONTROLPLANE_NODE_FLAGS);
  });

  it('pass only flags the programs define', { timeout: 120_000 }, async () => {
    const help: Record<string, Set<string>> = {
      'dist/agent.mjs': await helpFlags('agent/src/main.ts', 'run', '--help'),
      'dist/probe.mjs': await helpFlags('probe/src/main.ts', '--help'),
      'dist/controlplane.mjs': await helpFlags('controlplane/src/main.ts', 'run', '--help'),
    };
    const all = [
      ...objects(
        await render(MEMBER, ...MEMBER_VALUES, 'agent.cluster.region=eu', 'agent.cluster.zones={a,b}'),
      ),
      ...objects(await render(CONTROLPLANE, 'karmadaKubeconfig.kubeconfig=apiVersion: v1')),
    ];
    const seen = new Set<string>();
    for (const w of workloads(all)) {
      const { bundle, flags } = flagsPassed(podSpecOf(w).containers[0]!.args ?? []);
      seen.add(bundle);
      const known = help[bundle];
      expect(known, `${w.metadata.name} runs ${bundle}`).toBeDefined();
      expect(known!.size).toBeGreaterThan(10);
      for (const f of flags) expect(known, `${bundle} ${f}`).toContain(f);
    }
    expect([...seen].sort()).toEqual(Object.keys(help).sort());
  });
});

describe('monitoring (Prometheus Operator, Grafana dashboard sidecar)', () => {
  type Monitor = K8sObject & {
    spec: {
      selector: { matchLabels: Record<string, string> };
      namespaceSelector: { matchNames: string[] };
      endpoints?: Record<string, string>[];
      podMetricsEndpoints?: Record<string, string>[];
    };
  };
  type Service = K8sObject & {
    spec: { clusterIP: string; selector: Record<string, string>; ports: { targetPort: string }[] };
  };
  /** The one object of a kind. */
  const one = (objs: K8sObject[], kind: string): K8sObject => {
    const all = find(objs, kind);
    expect(
      all.map((o) => o.metadata.name),
      kind,
    ).toHaveLength(1);
    return all[0]!;
  };
  const podLabels = (w: K8sObject) =>
    (w.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
  const workload = (objs: K8sObject[], component: string) =>
    workloads(objs).find((w) => w.metadata.name.endsWith(component))!;
  /** The Service selects the workload's pods and the ServiceMonitor that Service, on the port named `metrics`. */
  function expectScrapedThroughService(objs: K8sObject[], component: string): Monitor {
    const service = one(objs, 'Service') as Service;
    const monitor = one(objs, 'ServiceMonitor') as Monitor;
    const w = workload(objs, component);
    expect(service.spec.clusterIP).toBe('None');
    expect(podLabels(w)).toMatchObject(service.spec.selector);
    expect(service.spec.ports.map((p) => p.targetPort)).toEqual(['metrics']);
    expect(podSpecOf(w).containers[0]!.ports?.map((p) => p.name)).toContain('metrics');
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.namespaceSelector.matchNames).toEqual(['karmada-system']);
    return monitor;
  }

  it('is off by default in both charts', async () => {
    for (const objs of [
      objects(await render(MEMBER, ...MEMBER_VALUES)),
      objects(await render(CONTROLPLANE, ...CONTROLPLANE_VALUES)),
    ]) {
      expect(objs.filter((o) => MONITORING_KINDS.includes(o.kind))).toEqual([]);
      expect(objs.filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'))).toEqual([]);
    }
  });

  it('scrapes the agent through a headless Service and the probe with a PodMonitor, labelled as asked', async () => {
    const objs = objects(
      await render(
        MEMBER,
        ...MEMBER_VALUES,
        ...MEMBER_MONITORING,
        'monitoring.serviceMonitor.labels.release=prometheus',
        'monitoring.serviceMonitor.interval=30s',
        'monitoring.podMonitor.labels.team=dns',
        'monitoring.podMonitor.interval=15s',
      ),
    );
    const agent = expectScrapedThroughService(objs, 'agent');
    expect(agent.metadata.labels).toMatchObject({
      release: 'prometheus',
      'app.kubernetes.io/component': 'agent',
    });
    expect(agent.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s' }]);
    const probe = one(objs, 'PodMonitor') as Monitor;
    expect(probe.metadata.labels).toMatchObject({ team: 'dns' });
    expect(probe.metadata.labels).not.toHaveProperty('release');
    expect(podLabels(workload(objs, 'probe'))).toMatchObject(probe.spec.selector.matchLabels);
    expect(probe.spec.selector.matchLabels).toMatchObject({ 'app.kubernetes.io/component': 'probe' });
    expect(probe.spec.podMetricsEndpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '15s' }]);
    // The rules and dashboards are the control-plane chart's.
    expect(find(objs, 'PrometheusRule')).toEqual([]);
    expect(find(objs, 'ConfigMap')).toEqual([]);
  });

  it('scrapes the controller through a headless Service, only where the controller runs', async () => {
    const objs = objects(
      await render(
        CONTROLPLANE,
        ...CONTROLPLANE_VALUES,
        ...CONTROLPLANE_MONITORING,
        'monitoring.serviceMonitor.labels.release=prometheus',
      ),
    );
    const monitor = expectScrapedThroughService(objs, 'controlplane');
    expect(monitor.metadata.labels).toMatchObject({ release: 'prometheus' });
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics' }]);
    const noController = objects(
      await render(CONTROLPLANE, ...CONTROLPLANE_MONITORING, 'controller.enabled=false'),
    );
    expect(find(noController, 'Service')).toEqual([]);
    expect(find(noController, 'ServiceMonitor')).toEqual([]);
  });

  it('refuses a ServiceMonitor without its Service', async () => {
    for (const [chart, values] of [
      [MEMBER, MEMBER_VALUES],
      [CONTROLPLANE, CONTROLPLANE_VALUES],
    ] as const) {
      await expect(render(chart, ...values, 'monitoring.serviceMonitor.enabled=true')).rejects.toThrow(
        /monitoring.serviceMonitor.enabled needs monitoring.service.enabled/,
      );
    }
  });

  it('carries exactly the alert rules of deploy/prometheus in one PrometheusRule', async () => {
    type Rules = { groups: unknown[] };
    const dir = join(root, 'deploy/prometheus');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.rules.yaml')).sort();
    const groups = [];
    for (const f of files) groups.push(...loadYaml<Rules>(await readFile(join(dir, f), 'utf8')).groups);
    expect(groups.length).toBeGreaterThan(0);
    const objs = objects(
      await render(
        CONTROLPLANE,
        ...CONTROLPLANE_MONITORING,
        'monitoring.prometheusRule.labels.role=alert-rules',
      ),
    );
    const rule = one(objs, 'PrometheusRule') as K8sObject & { spec: Rules };
    expect(rule.metadata.labels).toMatchObject({ role: 'alert-rules' });
    expect(rule.spec).toEqual({ groups });
  });

  it('holds each dashboard of deploy/grafana unchanged in a ConfigMap labelled for the sidecar', async () => {
    type ConfigMap = K8sObject & { data: Record<string, string> };
    const dir = join(root, 'deploy/grafana');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    const dashboards = async (...values: string[]) =>
      find(
        objects(await render(CONTROLPLANE, 'monitoring.dashboards.enabled=true', ...values)),
        'ConfigMap',
      ).map((o) => o as ConfigMap);
    const byDefault = await dashboards();
    expect(byDefault.flatMap((c) => Object.keys(c.data)).sort()).toEqual(files);
    for (const c of byDefault) {
      expect(c.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
      expect(c.metadata.namespace).toBe('karmada-system');
      for (const [file, json] of Object.entries(c.data)) {
        expect(json, file).toBe(await readFile(join(dir, file), 'utf8'));
      }
    }
    const chosen = await dashboards(
      'monitoring.dashboards.label=grafana.example.com/dashboard',
      'monitoring.dashboards.labelValue=yes',
      'monitoring.dashboards.labels.team=sre',
      'monitoring.dashboards.annotations.grafana_folder=Karmada',
      'monitoring.dashboards.namespace=monitoring',
    );
    expect(chosen).toHaveLength(files.length);
    for (const c of chosen) {
      expect(c.metadata.labels).toMatchObject({ 'grafana.example.com/dashboard': 'yes', team: 'sre' });
      expect(c.metadata.labels).not.toHaveProperty('grafana_dashboard');
      expect(c.metadata.annotations).toEqual({ grafana_folder: 'Karmada' });
      expect(c.metadata.namespace).toBe('monitoring');
    }
  });
});

describe('server-side dry run on a local federation', () => {
  let federation: LocalFederation;
  let kubectl: string;
  let scratch: string;
  beforeAll(async () => {
    kubectl = (await kubeBinaries()).kubectl;
    scratch = await mkdtemp(join(tmpdir(), 'kf-charts-'));
    // No CRDs: the control-plane chart brings its own.
    federation = await startFederation({ members: 1, member: { nodes: 1 }, installCrds: false });
  });
  afterAll(async () => {
    await federation.destroy();
    await rm(scratch, { recursive: true, force: true });
  });

  const kc = (kubeconfig: string, ...args: string[]) => run(kubectl, ['--kubeconfig', kubeconfig, ...args]);

  it('the control plane accepts the control-plane chart', async () => {
    const cp = federation.controlPlane.kubeconfigPath;
    await kc(cp, 'create', 'namespace', 'karmada-system');
    const crds = join(scratch, 'crds.yaml');
    await writeFile(crds, await renderCrds());
    await kc(cp, 'apply', '--server-side', '-f', crds);
    await kc(cp, 'wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all');
    const rendered = join(scratch, 'controlplane.yaml');
    await writeFile(rendered, await render(CONTROLPLANE, `@karmadaKubeconfig.kubeconfig=${cp}`));
    const out = await kc(cp, 'apply', '--dry-run=server', '-f', rendered);
    for (const line of [
      'deployment.apps/kf-karmada-failover-controlplane created (server dry run)',
      'clustertaintpolicy.policy.karmada.io/not-ready-no-execute created (server dry run)',
      'validatingadmissionpolicy.admissionregistration.k8s.io/karmada-failover-agent-own-objects created (server dry run)',
      'clusterrole.rbac.authorization.k8s.io/kf-karmada-failover-controlplane created (server dry run)',
    ]) {
      expect(out).toContain(line);
    }
  });

  it('renders the Cluster CRD again on upgrade, where its own CRD serves Clusters', async () => {
    // The CRDs the test above installed gave the API server local APIServices (no service) for
    // their group/versions: they must not make the chart drop its own CRDs.
    const cp = federation.controlPlane.kubeconfigPath;
    await eventually(
      'a local APIService v1alpha1.cluster.karmada.io',
      async () =>
        (await kc(
          cp,
          'get',
          'apiservice',
          'v1alpha1.cluster.karmada.io',
          '-o',
          'jsonpath={.spec.service}|{.spec.group}',
        )) === '|cluster.karmada.io',
    );
    const names = crdNames(await renderCrds(cp));
    expect(names).toContain('clusters.cluster.karmada.io');
    expect(names.sort()).toEqual(crdNames(await render(CONTROLPLANE)).sort());
  });

  it('a member accepts the member chart', async () => {
    const member = federation.members[0]!.kubeconfigPath;
    await kc(member, 'create', 'namespace', 'karmada-system');
    const rendered = join(scratch, 'member.yaml');
    await writeFile(
      rendered,
      await render(
        MEMBER,
        'clusterName=member1',
        `@karmadaKubeconfig.kubeconfig=${federation.controlPlane.kubeconfigPath}`,
        // Everything the chart can render for the agent, the credentials role included.
        'agent.reportSecrets={KubeCredentials,KubeImpersonator}',
      ),
    );
    const out = await kc(member, 'apply', '--dry-run=server', '-f', rendered);
    for (const line of [
      'deployment.apps/kf-karmada-failover-member-agent created (server dry run)',
      'daemonset.apps/kf-karmada-failover-member-probe created (server dry run)',
      'poddisruptionbudget.policy/kf-karmada-failover-member-agent created (server dry run)',
      'role.rbac.authorization.k8s.io/kf-karmada-failover-member-probe created (server dry run)',
      'validatingadmissionpolicy.admissionregistration.k8s.io/kf-karmada-failover-member-probe-own-node created (server dry run)',
      'clusterrole.rbac.authorization.k8s.io/karmada-controller-manager:karmada-member1 created (server dry run)',
    ]) {
      expect(out).toContain(line);
    }
  });

  it(
    'a member holding the Prometheus Operator’s CRDs accepts both charts’ monitoring objects',
    { timeout: 600_000 },
    async () => {
      const member = federation.members[0]!.kubeconfigPath;
      // The CRDs as scripts/fetch-prometheus-operator-crds.sh generates them install and are served.
      await kc(member, 'apply', '--server-side', '-f', await prometheusOperatorCrdDir());
      await kc(member, 'wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all');
      await run(
        kubectl,
        ['--kubeconfig', member, 'apply', '-f', '-'],
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: karmada-system}\n',
      );
      const memberChart = join(scratch, 'member-monitoring.yaml');
      await writeFile(memberChart, await render(MEMBER, ...MEMBER_VALUES, ...MEMBER_MONITORING));
      // The control-plane chart's host-cluster half, where the controller and its monitoring go.
      const hostChart = join(scratch, 'controlplane-monitoring.yaml');
      await writeFile(
        hostChart,
        await render(CONTROLPLANE, ...CONTROLPLANE_VALUES, ...HOST_ONLY, ...CONTROLPLANE_MONITORING),
      );
      const out =
        (await kc(member, 'apply', '--dry-run=server', '-f', memberChart)) +
        (await kc(member, 'apply', '--dry-run=server', '-f', hostChart));
      const dashboards = (await readdir(join(root, 'deploy/grafana'))).filter((f) => f.endsWith('.json'));
      for (const line of [
        'service/kf-karmada-failover-member-agent-metrics',
        'servicemonitor.monitoring.coreos.com/kf-karmada-failover-member-agent',
        'podmonitor.monitoring.coreos.com/kf-karmada-failover-member-probe',
        'service/kf-karmada-failover-controlplane-metrics',
        'servicemonitor.monitoring.coreos.com/kf-karmada-failover-controlplane',
        'prometheusrule.monitoring.coreos.com/kf-karmada-failover-controlplane',
        ...dashboards.map(
          (f) => `configmap/kf-karmada-failover-controlplane-dashboard-${f.replace(/\.json$/, '')}`,
        ),
      ]) {
        expect(out).toContain(`${line} created (server dry run)`);
      }
    },
  );
});

describe('on a Karmada control plane, whose aggregated API server serves Clusters', () => {
  const CLUSTERS_CRD = 'clusters.cluster.karmada.io';
  const CLUSTER_API_SERVICE = 'v1alpha1.cluster.karmada.io';
  let karmada: KarmadaControlPlane;
  let kubectl: string;
  let scratch: string;
  beforeAll(async () => {
    kubectl = (await kubeBinaries()).kubectl;
    scratch = await mkdtemp(join(tmpdir(), 'kf-charts-aggregated-'));
    // Karmada's own aggregated API server, without Karmada's CRDs: the chart brings its own.
    karmada = await KarmadaControlPlane.start({ components: ['aggregated-apiserver'], crds: false });
  });
  afterAll(async () => {
    await karmada.destroy();
    await rm(scratch, { recursive: true, force: true });
  });

  const kc = (...args: string[]) => run(kubectl, ['--kubeconfig', karmada.cluster.kubeconfigPath, ...args]);
  const helmOn = (...args: string[]) =>
    run(helm, [...args, '-n', 'karmada-system', '--kubeconfig', karmada.cluster.kubeconfigPath]);
  const INSTALL_VALUES = ['--set', 'controller.enabled=false', '--set', 'defaultTaintPolicy.create=false'];

  it('leaves the Cluster CRD out and installs the others', async () => {
    const everything = crdNames(await render(CONTROLPLANE));
    // Without a server to ask (helm template), lookup finds nothing: every CRD is rendered.
    expect(everything).toContain(CLUSTERS_CRD);
    const names = crdNames(await renderCrds(karmada.cluster.kubeconfigPath));
    expect(names).not.toContain(CLUSTERS_CRD);
    expect(names).toEqual(
      expect.arrayContaining(['propagationpolicies.policy.karmada.io', 'works.work.karmada.io']),
    );
    expect(names.sort()).toEqual(everything.filter((n) => n !== CLUSTERS_CRD).sort());

    // An install says what it left out and why (in its NOTES).
    const install = await helmOn('install', 'kf', CONTROLPLANE, '--dry-run=server', ...INSTALL_VALUES);
    expect(install).toContain(`not installed: ${CLUSTERS_CRD} — served by APIService ${CLUSTER_API_SERVICE}`);
    expect(install).toContain('name: works.work.karmada.io');
    expect(install).not.toContain(`name: ${CLUSTERS_CRD}`);
  });

  it('installed and uninstalled with its CRDs, loses no Cluster the aggregated API server holds', async () => {
    const cluster = join(scratch, 'cluster.json');
    await writeFile(
      cluster,
      JSON.stringify({
        apiVersion: 'cluster.karmada.io/v1alpha1',
        kind: 'Cluster',
        metadata: { name: 'member1' },
        spec: { syncMode: 'Pull' },
      }),
    );
    await kc('create', '-f', cluster);
    const uid = await kc('get', 'cluster', 'member1', '-o', 'jsonpath={.metadata.uid}');
    await helmOn('install', 'kf', CONTROLPLANE, ...INSTALL_VALUES, '--set', 'crds.keep=false', '--wait');
    expect(await kc('get', 'crd', '-o', 'name')).not.toContain(CLUSTERS_CRD);
    expect(await kc('get', 'crd', '-o', 'name')).toContain('works.work.karmada.io');
    // Uninstalling deletes every CRD the chart installed (crds.keep=false), and deleting a Cluster
    // CRD by hand finds none: Clusters stay with the aggregated API server.
    await helmOn('uninstall', 'kf', '--wait');
    await eventually(
      'the chart’s CRDs gone',
      async () => !(await kc('get', 'crd', '-o', 'name')).includes('work.karmada.io'),
    );
    await kc('delete', 'crd', CLUSTERS_CRD, '--ignore-not-found');
    expect(await kc('get', 'cluster', 'member1', '-o', 'jsonpath={.metadata.uid}')).toBe(uid);
  });

  it('why: a Cluster CRD applied by hand beside the APIService, once deleted, takes every Cluster with it', async () => {
    // Both store Clusters under the same etcd keys; deleting the CRD deletes what it lists.
    await kc(
      'apply',
      '--server-side',
      '-f',
      join(root, 'deploy', 'crds', 'cluster.karmada.io_clusters.yaml'),
    );
    await kc('wait', '--for=condition=Established', '--timeout=60s', 'crd', CLUSTERS_CRD);
    expect((await kc('get', 'clusters', '-o', 'name')).trim()).toBe('cluster.cluster.karmada.io/member1');
    await kc('delete', 'crd', CLUSTERS_CRD, '--timeout=60s');
    await eventually(
      'member1 gone with the CRD',
      async () => (await kc('get', 'clusters', '-o', 'name')) === '',
    );
  });
});
