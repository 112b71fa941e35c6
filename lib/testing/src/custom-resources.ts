/**
 * Custom resource definitions for tests of "any kind": a CRD with a free-form spec and a status
 * subresource, and its installation (created, then waited for until the API server serves it).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ResourceClient, type ResourceDescriptor } from '@kf/kube';
import { waitUntil } from './readiness.ts';

export const CRD_RESOURCE: ResourceDescriptor = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
  kind: 'CustomResourceDefinition',
};

export interface CustomResourceDefinition {
  readonly metadata: { readonly name: string };
  readonly spec: Readonly<Record<string, unknown>>;
  readonly status?: { readonly conditions?: readonly { type: string; status: string }[] };
}

/** `<plural>.<group>`, version v1, any spec and status (preserved unknown fields). */
export function freeFormCrd(
  group: string,
  kind: string,
  plural: string,
  scope: 'Namespaced' | 'Cluster',
): CustomResourceDefinition {
  return {
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
}

/** The same CRD serving `version` instead of v1 (custom kinds of other projects: `v1alpha1`...). */
export function servedAs(crd: CustomResourceDefinition, version: string): CustomResourceDefinition {
  const versions = (crd.spec['versions'] as readonly object[] | undefined) ?? [];
  return { ...crd, spec: { ...crd.spec, versions: versions.map((v) => ({ ...v, name: version })) } };
}

/** Creates the CRD and waits until it is Established (its kind is served). */
export async function installCrd(
  kc: KubeConfig,
  crd: CustomResourceDefinition,
  timeoutMs = 30_000,
): Promise<void> {
  const crds = new ResourceClient<CustomResourceDefinition>(kc, CRD_RESOURCE);
  await crds.create(crd);
  await waitUntil(
    `${crd.metadata.name} established`,
    async () =>
      (await crds.get(crd.metadata.name)).status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      ) === true,
    { timeoutMs, intervalMs: 100 },
  );
}
