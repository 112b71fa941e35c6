import { AppsV1Api, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { waitUntil } from './readiness.ts';

/** A Deployment whose pods KWOK runs (the image is never pulled). */
export function demoDeployment(name: string, replicas: number, namespace = 'default'): V1Deployment {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            { name, image: 'nginx:1.27', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
          ],
        },
      },
    },
  };
}

/** Creates (or replaces) the Deployment and waits until readyReplicas == replicas. */
export async function rollOut(
  kc: KubeConfig,
  deployment: V1Deployment,
  timeoutMs = 120_000,
): Promise<V1Deployment> {
  const apps = kc.makeApiClient(AppsV1Api);
  const namespace = deployment.metadata?.namespace ?? 'default';
  const name = deployment.metadata?.name ?? '';
  await apps.createNamespacedDeployment({ namespace, body: deployment }).catch(async (err: unknown) => {
    if ((err as { code?: number }).code !== 409) throw err;
    const current = await apps.readNamespacedDeployment({ name, namespace });
    const metadata = { ...deployment.metadata, resourceVersion: current.metadata?.resourceVersion ?? '' };
    await apps.replaceNamespacedDeployment({ name, namespace, body: { ...deployment, metadata } });
  });
  let last: V1Deployment | undefined;
  await waitUntil(
    `Deployment ${namespace}/${name} ready`,
    async () => {
      last = await apps.readNamespacedDeployment({ name, namespace });
      const want = last.spec?.replicas ?? 1;
      return (
        (last.status?.readyReplicas ?? 0) === want &&
        (last.status?.observedGeneration ?? 0) >= (last.metadata?.generation ?? 1)
      );
    },
    { timeoutMs, intervalMs: 500 },
  );
  if (last === undefined) throw new Error('unreachable: deployment was read');
  return last;
}
