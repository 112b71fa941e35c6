/**
 * The Go structures Karmada reads script results into, as decoding schemas: the replica
 * requirements of InterpretReplica, the components of InterpretComponent, the references of
 * InterpretDependency, and the part of a pod template the `kube` helpers read.
 */
import type { Field, Schema } from './go-decode.ts';

const string: Schema = { kind: 'string' };
const stringList: Schema = { kind: 'list', of: string };
const stringMap: Schema = { kind: 'map', of: string };
const resourceList: Schema = { kind: 'map', of: { kind: 'quantity' } };
const always = (schema: Schema): Field => ({ schema, keep: 'always' });
const pointer = (schema: Schema): Field => ({ schema, keep: 'pointer' });
const optional = (schema: Schema): Field => ({ schema });

function struct(name: string, fields: Readonly<Record<string, Field>>): Schema {
  return { kind: 'struct', name, fields };
}

const nodeSelectorRequirement = struct('NodeSelectorRequirement', {
  key: always(string),
  operator: always(string),
  values: optional(stringList),
});

const nodeSelector = struct('NodeSelector', {
  nodeSelectorTerms: always({
    kind: 'list',
    of: struct('NodeSelectorTerm', {
      matchExpressions: optional({ kind: 'list', of: nodeSelectorRequirement }),
      matchFields: optional({ kind: 'list', of: nodeSelectorRequirement }),
    }),
  }),
});

const toleration = struct('Toleration', {
  key: optional(string),
  operator: optional(string),
  value: optional(string),
  effect: optional(string),
  tolerationSeconds: pointer({ kind: 'int', bits: 64 }),
});

const nodeClaim = struct('NodeClaim', {
  hardNodeAffinity: pointer(nodeSelector),
  nodeSelector: optional(stringMap),
  tolerations: optional({ kind: 'list', of: toleration }),
});

export const replicaRequirementsSchema = struct('ReplicaRequirements', {
  nodeClaim: pointer(nodeClaim),
  resourceRequest: optional(resourceList),
  namespace: optional(string),
  priorityClassName: optional(string),
});

export const componentsSchema: Schema = {
  kind: 'list',
  of: struct('Component', {
    name: always(string),
    replicas: always({ kind: 'int', bits: 32 }),
    replicaRequirements: pointer(
      struct('ComponentReplicaRequirements', {
        nodeClaim: pointer(nodeClaim),
        resourceRequest: optional(resourceList),
        priorityClassName: optional(string),
      }),
    ),
  }),
};

const labelSelector = struct('LabelSelector', {
  matchLabels: optional(stringMap),
  matchExpressions: optional({
    kind: 'list',
    of: struct('LabelSelectorRequirement', {
      key: always(string),
      operator: always(string),
      values: optional(stringList),
    }),
  }),
});

export const dependenciesSchema: Schema = {
  kind: 'list',
  of: struct('DependentObjectReference', {
    apiVersion: always(string),
    kind: always(string),
    namespace: optional(string),
    name: optional(string),
    labelSelector: pointer(labelSelector),
  }),
};

const named = (name: string): Schema => struct(name, { name: optional(string) });
const secretReference = (name: string): Field => pointer(named(name));

const container = struct('Container', {
  name: optional(string),
  resources: optional(
    struct('ResourceRequirements', { limits: optional(resourceList), requests: optional(resourceList) }),
  ),
  env: optional({
    kind: 'list',
    of: struct('EnvVar', {
      name: always(string),
      valueFrom: pointer(
        struct('EnvVarSource', {
          configMapKeyRef: secretReference('ConfigMapKeySelector'),
          secretKeyRef: secretReference('SecretKeySelector'),
        }),
      ),
    }),
  }),
  envFrom: optional({
    kind: 'list',
    of: struct('EnvFromSource', {
      configMapRef: secretReference('ConfigMapEnvSource'),
      secretRef: secretReference('SecretEnvSource'),
    }),
  }),
});

const volume = struct('Volume', {
  name: always(string),
  persistentVolumeClaim: pointer(struct('PersistentVolumeClaimVolumeSource', { claimName: always(string) })),
  configMap: pointer(named('ConfigMapVolumeSource')),
  secret: pointer(struct('SecretVolumeSource', { secretName: optional(string) })),
  azureFile: pointer(struct('AzureFileVolumeSource', { secretName: always(string) })),
  projected: pointer(
    struct('ProjectedVolumeSource', {
      sources: always({
        kind: 'list',
        of: struct('VolumeProjection', {
          secret: secretReference('SecretProjection'),
          configMap: secretReference('ConfigMapProjection'),
        }),
      }),
    }),
  ),
  ...Object.fromEntries(
    ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'].map((source) => [
      source,
      pointer(struct(source, { secretRef: secretReference('LocalObjectReference') })),
    ]),
  ),
  csi: pointer(struct('CSIVolumeSource', { nodePublishSecretRef: secretReference('LocalObjectReference') })),
});

export const podTemplateSchema = struct('PodTemplateSpec', {
  spec: optional(
    struct('PodSpec', {
      containers: optional({ kind: 'list', of: container }),
      initContainers: optional({ kind: 'list', of: container }),
      ephemeralContainers: optional({ kind: 'list', of: container }),
      overhead: optional(resourceList),
      nodeSelector: optional(stringMap),
      tolerations: optional({ kind: 'list', of: toleration }),
      affinity: pointer(
        struct('Affinity', {
          nodeAffinity: pointer(
            struct('NodeAffinity', { requiredDuringSchedulingIgnoredDuringExecution: pointer(nodeSelector) }),
          ),
        }),
      ),
      priorityClassName: optional(string),
      serviceAccountName: optional(string),
      imagePullSecrets: optional({ kind: 'list', of: named('LocalObjectReference') }),
      volumes: optional({ kind: 'list', of: volume }),
    }),
  ),
});
