import { loadAllYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  agentAccessObjects,
  agentUserFor,
  renderAgentAccess,
  type AgentAccessObject,
} from './agent-access.ts';

const roles = (objects: readonly AgentAccessObject[]) => objects.flatMap((o) => ('rules' in o ? [o] : []));

describe('agentAccessObjects', () => {
  it.each(['member1', 'a', 'x'.repeat(48)])('binds only the user of cluster %s', (cluster) => {
    const bindings = agentAccessObjects(cluster).flatMap((o) => ('subjects' in o ? [o] : []));
    expect(bindings.map((b) => b.kind).sort()).toEqual([
      'ClusterRoleBinding',
      'RoleBinding',
      'RoleBinding',
      'RoleBinding',
    ]);
    for (const b of bindings) {
      expect(b.subjects).toEqual([
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: agentUserFor(cluster) },
      ]);
      expect(b.roleRef.name).toBe(b.metadata.name);
    }
  });

  it.each(['member1', 'member2'])(
    'grants cluster-wide and in shared namespaces only by name, except create (%s)',
    (cluster) => {
      const shared = roles(agentAccessObjects(cluster)).filter(
        (r) => r.metadata.namespace !== `karmada-es-${cluster}`,
      );
      expect(shared.map((r) => `${r.kind}/${r.metadata.namespace ?? ''}`).sort()).toEqual([
        'ClusterRole/',
        'Role/karmada-cluster',
        'Role/karmada-system',
      ]);
      for (const rule of shared.flatMap((r) => r.rules)) {
        if (rule.resourceNames === undefined) expect(rule.verbs).toEqual(['create']);
        else {
          for (const n of rule.resourceNames) {
            expect([
              cluster,
              `${cluster}-impersonator`,
              `karmada-agent-${cluster}`,
              `karmada-es-${cluster}`,
              'karmada-cluster',
            ]).toContain(n);
          }
        }
      }
      for (const rule of shared.flatMap((r) => (r.kind === 'ClusterRole' ? r.rules : []))) {
        expect(rule.resourceNames).toBeDefined();
      }
    },
  );

  it("reads credential Secrets only for Karmada's karmada-agent, and only its own two", () => {
    const secretRules = (objects: readonly AgentAccessObject[]) =>
      roles(objects)
        .flatMap((r) => r.rules)
        .filter((rule) => rule.resources.includes('secrets') && rule.resourceNames !== undefined);
    expect(secretRules(agentAccessObjects('member1')).map((r) => r.verbs)).toEqual([['patch']]);
    const upstream = secretRules(agentAccessObjects('member1', { karmadaAgent: true }));
    expect(upstream).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['member1', 'member1-impersonator'],
        verbs: ['get', 'patch', 'update'],
      },
    ]);
    // Everything else is the same.
    const rest = (objects: readonly AgentAccessObject[]) =>
      JSON.stringify(objects).replace('"get","patch","update"', '"patch"');
    expect(rest(agentAccessObjects('member1', { karmadaAgent: true }))).toBe(
      rest(agentAccessObjects('member1')),
    );
    expect(renderAgentAccess('member1', { karmadaAgent: true })).toContain('deploy/agent/karmada-agent.yaml');
  });

  it('names what the agent of member1 writes', () => {
    const byName = (kind: string, namespace?: string) =>
      roles(agentAccessObjects('member1')).find((r) => r.kind === kind && r.metadata.namespace === namespace)
        ?.rules;
    expect(byName('ClusterRole')).toEqual([
      {
        apiGroups: ['cluster.karmada.io'],
        resources: ['clusters'],
        resourceNames: ['member1'],
        verbs: ['get', 'update'],
      },
      {
        apiGroups: ['cluster.karmada.io'],
        resources: ['clusters/status'],
        resourceNames: ['member1'],
        verbs: ['get', 'update', 'patch'],
      },
      {
        apiGroups: [''],
        resources: ['namespaces'],
        resourceNames: ['karmada-cluster', 'karmada-es-member1'],
        verbs: ['get'],
      },
    ]);
    expect(byName('Role', 'karmada-cluster')).toContainEqual({
      apiGroups: [''],
      resources: ['secrets'],
      resourceNames: ['member1', 'member1-impersonator'],
      verbs: ['patch'],
    });
    expect(byName('Role', 'karmada-system')).toContainEqual({
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['karmada-agent-member1'],
      verbs: ['get', 'update'],
    });
    // Nothing anywhere lets it read a Secret or delete anything.
    for (const rule of roles(agentAccessObjects('member1')).flatMap((r) => r.rules)) {
      expect(rule.verbs).not.toContain('delete');
      if (rule.resources.includes('secrets')) expect(rule.verbs).not.toContain('get');
    }
  });

  it('creates the namespaces of its Roles first', () => {
    const objects = agentAccessObjects('member1');
    expect(objects.slice(0, 2).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Namespace/karmada-cluster',
      'Namespace/karmada-es-member1',
    ]);
  });
});

describe('renderAgentAccess', () => {
  it('is the objects as YAML documents', () => {
    expect(loadAllYaml(renderAgentAccess('member1'))).toEqual(agentAccessObjects('member1'));
  });
});
