/**
 * config.karmada.io CRDs: upstream's fields, with the shapes of kinds and the sizes of scripts
 * and lists bounded.
 */
import {
  resourceInterpreterCustomizationKind,
  resourceInterpreterWebhookConfigurationKind,
} from '../interpreter.ts';
import { bounds, patterns } from './common.ts';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { arr, int32, obj, str, type Schema } from './schema.ts';

/**
 * Longest Lua script: the scripts Karmada ships for third-party kinds are a few KiB; 256 KiB
 * leaves room for the largest hand-written one while keeping an object well under etcd's limit.
 */
const maxScriptLength = 262_144;
/** Webhooks in one configuration, and rules, operations, groups, versions and kinds in one webhook. */
const maxWebhookEntries = 100;

function script(operation: string): Schema {
  return obj(
    `${operation}: a Lua script.`,
    { luaScript: str('The Lua script.', { maxLength: maxScriptLength }) },
    { required: ['luaScript'] },
  );
}

function customizationSpec(): Schema {
  return obj(
    'The kind a customization is for, and its scripts.',
    {
      target: obj(
        'The kind (apiVersion and kind) the scripts interpret.',
        {
          apiVersion: str('API version of the kind, e.g. apps/v1.', {
            pattern: patterns.apiVersion,
            maxLength: bounds.apiVersion,
          }),
          kind: str('The kind, e.g. Deployment.', { pattern: patterns.kind, maxLength: bounds.kind }),
        },
        { required: ['apiVersion', 'kind'] },
      ),
      customizations: obj('Scripts by operation; an operation without one is left to the built-in rules.', {
        retention: script('Retain (keep fields a member changed)'),
        replicaResource: script('InterpretReplica (replicas and what each replica asks for)'),
        replicaRevision: script('ReviseReplica (set the replicas of a member copy)'),
        statusReflection: script('InterpretStatus (the status a member reports)'),
        statusAggregation: script('AggregateStatus (the members’ statuses into the template)'),
        healthInterpretation: script('InterpretHealth (whether a member copy is healthy)'),
        dependencyInterpretation: script('InterpretDependency (objects to propagate along)'),
        componentResource: script('InterpretComponent (the parts of a multi-template workload)'),
      }),
    },
    { required: ['target', 'customizations'] },
  );
}

export function resourceInterpreterCustomizationCrd(): CustomResourceDefinition {
  return customResourceDefinition(resourceInterpreterCustomizationKind, {
    description: 'Lua scripts that interpret one kind: health, replicas, status, retention, dependencies.',
    spec: customizationSpec(),
  });
}

function shortList(description: string, maxLength: number): Schema {
  return arr(description, str('An entry.', { maxLength }), { maxItems: maxWebhookEntries });
}

function webhook(): Schema {
  return obj(
    'A webhook that interprets the kinds its rules name.',
    {
      name: str('Name of the webhook.', { maxLength: bounds.name }),
      clientConfig: obj('How to reach the webhook.', {
        url: str('URL of the webhook.', { maxLength: bounds.url }),
        service: obj(
          'A Service in the control plane in front of the webhook.',
          {
            namespace: str('Namespace of the Service.', { maxLength: bounds.namespace }),
            name: str('Name of the Service.', { maxLength: bounds.name }),
            path: str('URL path of the webhook.', { maxLength: bounds.url }),
            port: int32('Port of the Service (default 443).'),
          },
          { required: ['namespace', 'name'] },
        ),
        caBundle: str('PEM CA bundle (base64) that signs the webhook’s certificate.', {
          format: 'byte',
          maxLength: maxScriptLength,
        }),
      }),
      rules: arr(
        'The operations and kinds the webhook interprets.',
        obj(
          'A rule.',
          {
            operations: shortList('Operations, e.g. InterpretReplica; * for all.', bounds.kind),
            apiGroups: shortList('API groups; * for all.', bounds.name),
            apiVersions: shortList('API versions; * for all.', bounds.kind),
            kinds: shortList('Kinds; * for all.', bounds.kind),
          },
          { required: ['operations', 'apiGroups', 'apiVersions', 'kinds'] },
        ),
        { maxItems: maxWebhookEntries },
      ),
      timeoutSeconds: int32('Seconds to wait for an answer (1 to 30; default 10).'),
      interpreterContextVersions: shortList(
        'ResourceInterpreterContext versions the webhook accepts.',
        bounds.kind,
      ),
    },
    { required: ['name', 'clientConfig', 'interpreterContextVersions'] },
  );
}

export function resourceInterpreterWebhookConfigurationCrd(): CustomResourceDefinition {
  return customResourceDefinition(resourceInterpreterWebhookConfigurationKind, {
    description: 'Webhooks that interpret kinds, as Lua customizations do.',
    spec: obj(
      'The webhooks.',
      { webhooks: arr('Webhooks.', webhook(), { maxItems: maxWebhookEntries }) },
      { required: ['webhooks'] },
    ),
  });
}
