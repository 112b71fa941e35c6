/**
 * The dependencies Karmada's built-in interpreter finds in the native workload kinds (upstream's
 * `default/native/dependencies.go` with the pod helpers it calls): every ConfigMap, Secret,
 * ServiceAccount and PersistentVolumeClaim the pod template names, in the workload's namespace.
 *
 * - ConfigMaps: `envFrom[].configMapRef`, `env[].valueFrom.configMapKeyRef` of init, regular and
 *   ephemeral containers; `configMap` volumes and the `configMap` sources of `projected` volumes.
 * - Secrets: `imagePullSecrets`; `envFrom[].secretRef`, `env[].valueFrom.secretKeyRef` of every
 *   container; `secret` volumes, the `secret` sources of `projected` volumes and the secret
 *   references of the azureFile, cephfs, cinder, flexVolume, rbd, scaleIO, iscsi, storageos and
 *   csi (`nodePublishSecretRef`) volume sources.
 * - ServiceAccount: `serviceAccountName`, unless empty or `default` (every namespace has one).
 * - PersistentVolumeClaims: `persistentVolumeClaim` volumes, except, for a StatefulSet, those named
 *   like one of its `volumeClaimTemplates` (the StatefulSet makes those in each member itself).
 *
 * Empty names never count. Ingress adds the Secret of each `tls` entry. Each kind's names come
 * out sorted (upstream collects them in sets, whose order is random).
 */
import type { DependentObjectReference } from '@kf/interpreter';
import { recordOf, type ResourceTemplate } from '../template.ts';

type Json = Readonly<Record<string, unknown>>;

/** Where each built-in kind keeps its pod spec, as a path from the object's root. */
const POD_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  'apps/v1/Deployment': ['spec', 'template', 'spec'],
  'apps/v1/ReplicaSet': ['spec', 'template', 'spec'],
  'apps/v1/StatefulSet': ['spec', 'template', 'spec'],
  'apps/v1/DaemonSet': ['spec', 'template', 'spec'],
  'batch/v1/Job': ['spec', 'template', 'spec'],
  'batch/v1/CronJob': ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
  'v1/Pod': ['spec'],
};

const INGRESS = 'networking.k8s.io/v1/Ingress';

/** Volume sources whose `secretRef.name` names a Secret. */
const SECRET_REF_SOURCES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'];

/** The built-in dependencies of `t`; undefined for a kind the built-in rules do not cover. */
export function builtInDependencies(t: ResourceTemplate): DependentObjectReference[] | undefined {
  const type = `${t.apiVersion ?? ''}/${t.kind ?? ''}`;
  const namespace = t.metadata.namespace ?? '';
  if (type === INGRESS) return ingressDependencies(t, namespace);
  const path = POD_SPEC_PATHS[type];
  if (path === undefined) return undefined;
  const podSpec = at(t as unknown as Json, path) ?? {};
  const claimTemplates = kindOf(t) === 'StatefulSet' ? volumeClaimTemplateNames(t) : new Set<string>();
  const pvcs = [...pvcNames(podSpec)].filter((n) => !claimTemplates.has(n));
  return [
    ...refs('ConfigMap', configMapNames(podSpec), namespace),
    ...refs('Secret', secretNames(podSpec), namespace),
    ...refs('ServiceAccount', serviceAccountNames(podSpec), namespace),
    ...refs('PersistentVolumeClaim', pvcs, namespace),
  ];
}

function kindOf(t: ResourceTemplate): string {
  return t.kind ?? '';
}

function refs(kind: string, names: Iterable<string>, namespace: string): DependentObjectReference[] {
  return [...new Set(names)]
    .filter((n) => n !== '')
    .sort()
    .map((name) => ({ apiVersion: 'v1', kind, namespace, name }));
}

function at(root: Json, path: readonly string[]): Json | undefined {
  let cur: Json | undefined = root;
  for (const p of path) cur = cur === undefined ? undefined : recordOf(cur[p]);
  return cur;
}

function list(value: unknown): readonly Json[] {
  return Array.isArray(value) ? value.map(recordOf).filter((x): x is Json => x !== undefined) : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `obj.<field>.<key>` as a string ('' when absent). */
function nested(obj: Json | undefined, field: string, key: string): string | undefined {
  const inner = recordOf(obj?.[field]);
  return inner === undefined ? undefined : str(inner[key]);
}

function containers(podSpec: Json): readonly Json[] {
  return [
    ...list(podSpec['initContainers']),
    ...list(podSpec['containers']),
    ...list(podSpec['ephemeralContainers']),
  ];
}

/** Names `envFrom[].<fromField>` and `env[].valueFrom.<keyRefField>` give, over every container. */
function containerRefs(podSpec: Json, fromField: string, keyRefField: string): string[] {
  const out: string[] = [];
  for (const c of containers(podSpec)) {
    for (const e of list(c['envFrom'])) {
      const n = nested(e, fromField, 'name');
      if (n !== undefined) out.push(n);
    }
    for (const e of list(c['env'])) {
      const n = nested(recordOf(e['valueFrom']), keyRefField, 'name');
      if (n !== undefined) out.push(n);
    }
  }
  return out;
}

function projectedSources(volume: Json, field: string): string[] {
  const projected = recordOf(volume['projected']);
  return list(projected?.['sources'])
    .map((s) => nested(s, field, 'name'))
    .filter((n): n is string => n !== undefined);
}

function configMapNames(podSpec: Json): string[] {
  const out = containerRefs(podSpec, 'configMapRef', 'configMapKeyRef');
  for (const v of list(podSpec['volumes'])) {
    out.push(...projectedSources(v, 'configMap'));
    const n = nested(v, 'configMap', 'name');
    if (n !== undefined) out.push(n);
  }
  return out;
}

/** The Secret a volume names: its `secret` source, a secret reference of a driver, or none. */
function volumeSecretNames(v: Json): string[] {
  const out = projectedSources(v, 'secret');
  const secret = nested(v, 'secret', 'secretName');
  if (secret !== undefined) out.push(secret);
  const azure = nested(v, 'azureFile', 'secretName');
  if (azure !== undefined) out.push(azure);
  for (const field of SECRET_REF_SOURCES) {
    const n = nested(recordOf(v[field]), 'secretRef', 'name');
    if (n !== undefined) out.push(n);
  }
  const csi = nested(recordOf(v['csi']), 'nodePublishSecretRef', 'name');
  if (csi !== undefined) out.push(csi);
  return out;
}

function secretNames(podSpec: Json): string[] {
  const out = list(podSpec['imagePullSecrets']).map((r) => str(r['name']));
  out.push(...containerRefs(podSpec, 'secretRef', 'secretKeyRef'));
  for (const v of list(podSpec['volumes'])) out.push(...volumeSecretNames(v));
  return out;
}

function serviceAccountNames(podSpec: Json): string[] {
  const sa = str(podSpec['serviceAccountName']);
  return sa === '' || sa === 'default' ? [] : [sa];
}

function pvcNames(podSpec: Json): string[] {
  return list(podSpec['volumes'])
    .map((v) => nested(v, 'persistentVolumeClaim', 'claimName'))
    .filter((n): n is string => n !== undefined && n !== '');
}

function volumeClaimTemplateNames(t: ResourceTemplate): Set<string> {
  return new Set(list(t.spec?.['volumeClaimTemplates']).map((c) => str(recordOf(c['metadata'])?.['name'])));
}

/** Ingress: the Secret of each TLS entry (one without a secretName names nothing). */
function ingressDependencies(t: ResourceTemplate, namespace: string): DependentObjectReference[] {
  const names = list(t.spec?.['tls']).map((e) => str(e['secretName']));
  return names.filter((n) => n !== '').map((name) => ({ apiVersion: 'v1', kind: 'Secret', namespace, name }));
}
