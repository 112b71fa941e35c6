/**
 * The API server's floor for placing new bindings: the writes the control plane makes for a new
 * Deployment, made by one client with nothing deciding in between (no watches, no reconciles, the
 * control plane stopped), on the same API server and store. However fast the decisions, placement
 * cannot go faster on the same machine.
 *
 * Per binding, the writes a placement costs (as the scale benchmark's restart phase counts them
 * for its new Deployment): the binding's create, the template's patch, the placement (a merge
 * patch of the binding's clusters), the scheduler's status patch (Scheduled, observed generation,
 * when), the Works, and binding-status's patch (aggregated status and FullyApplied) when the
 * sample has one: binding-status writes none before a Work reports, and the benchmark's simulated
 * members report none. Copies of a placed binding of the run, its
 * Works and its template's patch, under new names; the templates themselves are created first,
 * outside the time (they are the user's writes, not the control plane's).
 */
import { performance } from 'node:perf_hooks';
import { resourceBindingKind, workKind, type ResourceBinding, type Work } from '@kf/api';
import type { KubeConfig } from '@kubernetes/client-node';
import { ResourceClient } from '@kf/kube';
import type { V1Deployment } from '@kubernetes/client-node';
import { workNameFor } from '../src/names.ts';
import { inParallel } from './support.ts';

/** A binding the control plane placed, with what its placement wrote. */
export interface PlacedSample {
  readonly binding: ResourceBinding;
  readonly works: readonly Work[];
  readonly template: V1Deployment;
}

export interface PlacementFloorResult {
  readonly seconds: number;
  readonly writes: number;
}

const DEPLOYMENTS = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  kind: 'Deployment',
} as const;

/** Places `count` new bindings named `<prefix>-<i>` as the pipeline would, `concurrency` at a time. */
export async function replayPlacementWrites(
  kubeConfig: KubeConfig,
  sample: PlacedSample,
  opts: { readonly count: number; readonly prefix: string; readonly concurrency: number },
): Promise<PlacementFloorResult> {
  const deployments = new ResourceClient<V1Deployment>(kubeConfig, DEPLOYMENTS);
  const bindings = new ResourceClient<ResourceBinding>(kubeConfig, resourceBindingKind);
  const works = new ResourceClient<Work>(kubeConfig, workKind);
  const namespace = sample.template.metadata?.namespace ?? 'default';
  const nameOf = (i: number): string => `${opts.prefix}-${String(i).padStart(6, '0')}`;
  await inParallel(opts.count, (i) => deployments.create(templateCopy(sample.template, nameOf(i))));
  let writes = 0;
  const startedAt = performance.now();
  await inParallel(
    opts.count,
    async (i) => {
      const name = nameOf(i);
      const key = `${namespace}/${name}-deployment`;
      await bindings.create(bindingCopy(sample.binding, name));
      await deployments.mergePatch(`${namespace}/${name}`, {
        metadata: {
          labels: karmadaEntries(sample.template.metadata?.labels),
          annotations: karmadaEntries(sample.template.metadata?.annotations),
        },
      });
      await bindings.mergePatch(key, { spec: { clusters: sample.binding.spec.clusters } });
      const status = sample.binding.status ?? {};
      const conditions = status.conditions ?? [];
      await bindings.patchStatus(key, {
        status: {
          schedulerObservedGeneration: 2,
          conditions: conditions.filter((c) => c.type === 'Scheduled'),
          ...(status.lastScheduledTime === undefined ? {} : { lastScheduledTime: status.lastScheduledTime }),
        },
      });
      await Promise.all(sample.works.map((w) => works.create(workCopy(w, sample.binding, name))));
      writes += 4 + sample.works.length;
      if (status.aggregatedStatus === undefined && !conditions.some((c) => c.type === 'FullyApplied')) return;
      await bindings.patchStatus(key, {
        status: { aggregatedStatus: status.aggregatedStatus ?? [], conditions },
      });
      writes += 1;
    },
    opts.concurrency,
  );
  return { seconds: (performance.now() - startedAt) / 1000, writes };
}

/** Labels or annotations the control plane sets (its prefixes), for the template's patch. */
function karmadaEntries(entries: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(entries ?? {}).filter(([k]) => k.includes('karmada.io/')));
}

function templateCopy(t: V1Deployment, name: string): V1Deployment {
  const labels = Object.fromEntries(
    Object.entries(t.metadata?.labels ?? {}).filter(
      ([k]) => !k.includes('karmada.io/') && k !== 'scale-pair',
    ),
  );
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: t.metadata?.namespace ?? 'default', labels },
    ...(t.spec === undefined ? {} : { spec: t.spec }),
  };
}

function bindingCopy(b: ResourceBinding, name: string): ResourceBinding {
  const m = b.metadata;
  return {
    apiVersion: b.apiVersion ?? 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name: `${name}-deployment`,
      namespace: m.namespace ?? 'default',
      ...(m.labels === undefined ? {} : { labels: fresh(m.labels, name) }),
      ...(m.annotations === undefined ? {} : { annotations: m.annotations }),
      ...(m.finalizers === undefined ? {} : { finalizers: m.finalizers }),
    },
    spec: { ...b.spec, resource: { ...b.spec.resource, name }, clusters: [] },
  };
}

function workCopy(w: Work, b: ResourceBinding, name: string): Work {
  const m = w.metadata;
  const [manifest] = w.spec.workload?.manifests ?? [];
  const manifestMeta = (manifest?.['metadata'] ?? {}) as Record<string, unknown>;
  return {
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: {
      name: workNameFor('Deployment', name, b.metadata.namespace),
      namespace: m.namespace ?? '',
      ...(m.labels === undefined ? {} : { labels: fresh(m.labels, name) }),
      ...(m.annotations === undefined ? {} : { annotations: m.annotations }),
      ...(m.finalizers === undefined ? {} : { finalizers: m.finalizers }),
    },
    spec: {
      ...w.spec,
      workload: {
        manifests: manifest === undefined ? [] : [{ ...manifest, metadata: { ...manifestMeta, name } }],
      },
    },
  };
}

/** Labels with the permanent ids made unique per copy (as each new binding has its own). */
function fresh(labels: Readonly<Record<string, string>>, name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(labels).map(([k, v]) => [
      k,
      k.endsWith('permanent-id') ? `${v.slice(0, 24)}-${name}`.slice(-63) : v,
    ]),
  );
}
