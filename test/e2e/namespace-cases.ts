/**
 * Cases of namespace propagation, run on the federation of workload-rebalancer.int.test.ts (they
 * touch only their own namespace). Namespaces reach the members as Karmada's do: a namespace created in the control plane appears in
 * every member (labels kept), so that a workload propagated into it runs there; `kube-*` and a
 * namespace labelled `namespace.karmada.io/skip-auto-propagation: "true"` stay in the control plane.
 * Deleting the namespace deletes it from the members, except where it holds objects Karmada did not
 * put there: that member keeps it (released, an Event on the Work says why).
 */
import { CoreV1Api, type V1Namespace } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { duplicatedOnto, type FailoverFederation } from '@kf/testing';
import { workNameFor } from '../../controlplane/src/names.ts';
import { demoDeployment, eventsAbout, holdsFor, policyFor, until } from './support.ts';

let fed: FailoverFederation;

function core(member?: string): CoreV1Api {
  const kc = member === undefined ? fed.controlPlaneKubeConfig() : fed.member(member).kubeConfig();
  return kc.makeApiClient(CoreV1Api);
}

async function memberNamespace(member: string, name: string): Promise<V1Namespace | undefined> {
  try {
    const ns = await core(member).readNamespace({ name });
    return ns.status?.phase === 'Terminating' ? undefined : ns;
  } catch {
    return undefined;
  }
}

/** The namespace cases, on the federation `federation()` gives once the suite runs. */
export function defineNamespaceTests(federation: () => FailoverFederation): void {
  describe('namespace propagation', () => {
    beforeAll(async () => {
      fed = federation();
      await fed.waitForHealthyClusters(90_000);
    });

    it('gives every member the namespaces workloads land in, and not the skipped ones', async () => {
      await core().createNamespace({ body: { metadata: { name: 'team-a', labels: { team: 'a' } } } });
      await core().createNamespace({
        body: {
          metadata: { name: 'quiet', labels: { 'namespace.karmada.io/skip-auto-propagation': 'true' } },
        },
      });
      await core().createNamespace({ body: { metadata: { name: 'kube-extra' } } });
      for (const m of fed.memberNames) {
        await until(`team-a in ${m}`, async () => (await memberNamespace(m, 'team-a')) !== undefined);
        const ns = await memberNamespace(m, 'team-a');
        expect(ns?.metadata?.labels).toMatchObject({ team: 'a', 'karmada.io/managed': 'true' });
      }
      await holdsFor(3_000, 'quiet and kube-extra only in the control plane', async () => {
        for (const m of fed.memberNames) {
          if ((await memberNamespace(m, 'quiet')) !== undefined) return false;
          if ((await memberNamespace(m, 'kube-extra')) !== undefined) return false;
        }
        return true;
      });

      // A workload in the namespace runs in the members without anyone creating it there by hand.
      const policy = policyFor('web', duplicatedOnto(['member1', 'member2']));
      await fed.policies.create({ ...policy, metadata: { ...policy.metadata, namespace: 'team-a' } });
      await fed.apps.createNamespacedDeployment({
        namespace: 'team-a',
        body: demoDeployment('web', 1, 'team-a'),
      });
      for (const m of fed.memberNames) {
        await until(`web available in ${m}/team-a`, async () => {
          const d = await fed
            .memberApps(m)
            .readNamespacedDeployment({ namespace: 'team-a', name: 'web' })
            .catch(() => undefined);
          return (d?.status?.availableReplicas ?? 0) === 1;
        });
      }
    });

    it('deletes the namespace from the members, but keeps it where others have put objects', async () => {
      // Someone puts an object of their own into member1's copy of the namespace.
      await core('member1').createNamespacedConfigMap({
        namespace: 'team-a',
        body: { metadata: { name: 'not-karmadas' }, data: { x: '1' } },
      });
      await core().deleteNamespace({ name: 'team-a' });
      await until('team-a gone from member2', async () => {
        try {
          await core('member2').readNamespace({ name: 'team-a' });
          return false;
        } catch {
          return true;
        }
      });
      await until(
        'NamespaceKept Event',
        async () => (await eventsAbout(fed, namespaceWorkName(), 'NamespaceKept')).length > 0,
        60_000,
      );
      const [kept] = await eventsAbout(fed, namespaceWorkName(), 'NamespaceKept');
      expect(kept?.involvedObject.namespace).toBe('karmada-es-member1');
      expect(kept?.message).toContain('ConfigMap not-karmadas');
      const ns = await memberNamespace('member1', 'team-a');
      expect(ns?.metadata?.labels?.['karmada.io/managed']).toBeUndefined();
      expect(ns?.metadata?.labels?.team).toBe('a');
      const left = await core('member1').readNamespacedConfigMap({
        namespace: 'team-a',
        name: 'not-karmadas',
      });
      expect(left.data).toEqual({ x: '1' });
    });
  });
}

/** The Work name of namespace team-a (as the control plane names Works of cluster-scoped objects). */
function namespaceWorkName(): string {
  return workNameFor('Namespace', 'team-a', undefined);
}
