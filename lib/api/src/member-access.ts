/**
 * What the code that manages a member needs in that member, as RBAC rules: the same whether it runs
 * in the member (the Pull agent, whose ClusterRole the member chart renders) or in the control plane
 * for a Push cluster (the ServiceAccount `controlplane join` makes). Reading the cluster's id, its
 * health, version and API list, listing nodes and pods for the status, and applying the kinds that
 * Works carry. Nothing that changes who may do what: no RBAC write, no `bind`, `escalate` or
 * `impersonate`, no wildcard (Karmada's own join grants every verb on every resource).
 */

/** One RBAC rule, resource or non-resource. */
export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly verbs: readonly string[];
}

/** Cluster status: the id (kube-system's uid), health URLs, version, discovery, nodes and pods. */
export const MEMBER_STATUS_RULES: readonly PolicyRule[] = [
  {
    nonResourceURLs: ['/readyz', '/healthz', '/version', '/api', '/api/*', '/apis', '/apis/*'],
    verbs: ['get'],
  },
  { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
  { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['list', 'watch'] },
];

const WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;

/**
 * The kinds Works may carry by default: the common workload kinds and what they need. Add rules for
 * any other kind propagated; a Work of a kind outside them fails with the member's 403 on its status.
 */
export const DEFAULT_WORKLOAD_RULES: readonly PolicyRule[] = [
  {
    apiGroups: [''],
    resources: [
      'namespaces',
      'configmaps',
      'secrets',
      'services',
      'serviceaccounts',
      'persistentvolumeclaims',
    ],
    verbs: WRITE,
  },
  {
    apiGroups: ['apps'],
    resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'],
    verbs: WRITE,
  },
  { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: WRITE },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: WRITE },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: WRITE },
  { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: WRITE },
];

/** Verbs that change who may do what: never granted to the code that manages a member. */
const ESCALATING_VERBS = ['bind', 'escalate', 'impersonate'] as const;

/**
 * What is wrong with workload rules given by an operator, one line each (empty when nothing):
 * wildcards, escalating verbs, RBAC objects and non-resource URLs are refused, as the member
 * chart's values schema refuses them.
 */
export function workloadRuleProblems(rules: readonly PolicyRule[]): string[] {
  return rules.flatMap((rule, i) => ruleProblems(rule).map((problem) => `rule ${String(i + 1)}: ${problem}`));
}

function ruleProblems(rule: PolicyRule): string[] {
  const problems: string[] = [];
  if (rule.verbs.length === 0) problems.push('verbs must not be empty');
  if ((rule.resources ?? []).length === 0) problems.push('resources must not be empty');
  if (rule.nonResourceURLs !== undefined) problems.push('nonResourceURLs are not workload kinds');
  for (const [field, values] of [
    ['apiGroups', rule.apiGroups ?? []],
    ['resources', rule.resources ?? []],
    ['verbs', rule.verbs],
  ] as const) {
    if (values.some((v) => v.includes('*'))) problems.push(`no wildcard in ${field}`);
  }
  return [...problems, ...escalations(rule)];
}

/** What in a rule would let its holder change who may do what. */
function escalations(rule: PolicyRule): string[] {
  const found = ESCALATING_VERBS.filter((verb) => rule.verbs.includes(verb)).map(
    (verb) => `the verb ${verb} is never granted`,
  );
  if ((rule.apiGroups ?? []).includes('rbac.authorization.k8s.io'))
    found.push('RBAC objects are not workload kinds');
  return found;
}
