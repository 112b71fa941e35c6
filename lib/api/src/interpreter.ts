/**
 * config.karmada.io/v1alpha1: how Karmada learns the health, replicas and status of kinds it does
 * not know. A ResourceInterpreterCustomization carries Lua scripts for one kind; a
 * ResourceInterpreterWebhookConfiguration names webhooks that answer the same questions. Karmada's
 * own agent and controllers read both kinds at start-up, so a control plane they join must serve
 * them.
 */
import { defineKind } from './kind.ts';
import type { KarmadaObject, ObjectMeta } from './meta.ts';

/** One Lua script; its entry function depends on the operation (e.g. `InterpretHealth`). */
export interface LuaScript {
  readonly luaScript: string;
}

/** The operations a customization may script, by the field that holds each script. */
export interface CustomizationRules {
  readonly retention?: LuaScript;
  readonly replicaResource?: LuaScript;
  readonly replicaRevision?: LuaScript;
  readonly statusReflection?: LuaScript;
  readonly statusAggregation?: LuaScript;
  readonly healthInterpretation?: LuaScript;
  readonly dependencyInterpretation?: LuaScript;
  readonly componentResource?: LuaScript;
}

export interface CustomizationTarget {
  readonly apiVersion: string;
  readonly kind: string;
}

export interface ResourceInterpreterCustomizationSpec {
  readonly target: CustomizationTarget;
  readonly customizations: CustomizationRules;
}

/** No status, as upstream. */
export type ResourceInterpreterCustomization = KarmadaObject<ResourceInterpreterCustomizationSpec, never>;

export const resourceInterpreterCustomizationKind = defineKind<ResourceInterpreterCustomization>({
  group: 'config.karmada.io',
  version: 'v1alpha1',
  kind: 'ResourceInterpreterCustomization',
  plural: 'resourceinterpretercustomizations',
  shortNames: ['ric'],
  namespaced: false,
  specFields: { target: true, customizations: true },
  statusFields: {},
});

export interface InterpreterServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly path?: string;
  readonly port?: number;
}

export interface InterpreterWebhookClientConfig {
  readonly url?: string;
  readonly service?: InterpreterServiceReference;
  readonly caBundle?: string;
}

export interface InterpreterRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly kinds: readonly string[];
}

export interface ResourceInterpreterWebhook {
  readonly name: string;
  readonly clientConfig: InterpreterWebhookClientConfig;
  readonly rules?: readonly InterpreterRule[];
  readonly timeoutSeconds?: number;
  readonly interpreterContextVersions: readonly string[];
}

/** Like an admission webhook configuration, its fields sit at the top level: there is no spec. */
export interface ResourceInterpreterWebhookConfiguration {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly webhooks: readonly ResourceInterpreterWebhook[];
}

export const resourceInterpreterWebhookConfigurationKind =
  defineKind<ResourceInterpreterWebhookConfiguration>({
    group: 'config.karmada.io',
    version: 'v1alpha1',
    kind: 'ResourceInterpreterWebhookConfiguration',
    plural: 'resourceinterpreterwebhookconfigurations',
    namespaced: false,
    topLevel: true,
    specFields: { webhooks: true },
    statusFields: {},
  });
