/** PropagationPolicy and ClusterPropagationPolicy CRDs. */
import { clusterPropagationPolicyKind, propagationPolicyKind } from '../policy.ts';
import type { KindDescriptor } from '../kind.ts';
import { bounds, conditionList, labelSelector, nameList, patterns } from './common.ts';
import { ageColumn, customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { conflictResolution, failover, placement, suspendClusters } from './placement.ts';
import { arr, bool, int32, int64, obj, oneOf, str, type Schema } from './schema.ts';

/** Not in upstream: lets the control plane report what upstream's webhook would have rejected. */
function policyStatus(): Schema {
  return obj('Problems found with the policy (an addition to the upstream API, which has no status).', {
    observedGeneration: int64('The .metadata.generation the status is about.', { minimum: 0 }),
    conditions: conditionList('Conditions of the policy.'),
  });
}

function resourceSelectors(): Schema {
  return arr(
    'Resources the policy propagates; at least one, none means nothing (not everything).',
    obj(
      'Selects resources by API version and kind, then by namespace, name or labels.',
      {
        apiVersion: str('API version of the resources.', {
          pattern: patterns.apiVersion,
          minLength: 1,
          maxLength: bounds.apiVersion,
        }),
        kind: str('Kind of the resources.', { pattern: patterns.kind, minLength: 1, maxLength: bounds.kind }),
        namespace: str(
          'Namespace of the resources; empty means the policy namespace (or all, for cluster policies).',
          { pattern: patterns.optionalDnsLabel, maxLength: bounds.namespace },
        ),
        name: str('Name of the resource; empty means all.', { maxLength: bounds.name }),
        labelSelector: labelSelector('Selects resources by labels; ignored when name is set.'),
      },
      { required: ['apiVersion', 'kind'] },
    ),
    { minItems: 1, maxItems: bounds.resourceSelectors },
  );
}

function spec(): Schema {
  return obj(
    'Which resources to propagate, where, and how to fail over.',
    {
      resourceSelectors: resourceSelectors(),
      association: bool('Deprecated: use propagateDeps.'),
      propagateDeps: bool(
        'Propagate the resources these depend on (ConfigMaps, Secrets...) along with them.',
      ),
      placement: placement('Which clusters the resources go to.'),
      priority: int32('Higher wins when several policies match a resource.', { default: 0 }),
      preemption: oneOf(
        'Whether the policy may take resources from lower-priority policies.',
        ['Always', 'Never'],
        {
          default: 'Never',
        },
      ),
      dependentOverrides: nameList(
        'OverridePolicies that must exist before the policy applies.',
        bounds.smallList,
      ),
      schedulerName: str('Scheduler that places the resources.', {
        default: 'default-scheduler',
        maxLength: bounds.name,
      }),
      failover: failover('How resources move away from failed applications or clusters; unset disables it.'),
      conflictResolution: conflictResolution(),
      activationPreference: oneOf('Lazy: policy changes apply only when the resource itself changes.', [
        'Lazy',
      ]),
      suspension: obj(
        'Suspends parts of the propagation.',
        {
          dispatching: bool('True stops propagating to all clusters.'),
          dispatchingOnClusters: suspendClusters('Stops propagating to these clusters.'),
        },
        {
          rules: [
            {
              rule: '!has(self.dispatching) || !self.dispatching || !has(self.dispatchingOnClusters)',
              message: 'dispatching and dispatchingOnClusters are mutually exclusive',
              fieldPath: '.dispatchingOnClusters',
            },
          ],
        },
      ),
      preserveResourcesOnDeletion: bool('Keep the member copies when the resource template is deleted.'),
      schedulePriority: obj(
        'Where the scheduling priority of the resources comes from.',
        {
          priorityClassSource: oneOf('Source of the PriorityClass.', ['KubePriorityClass']),
          priorityClassName: str('Name of the PriorityClass.', { minLength: 1, maxLength: bounds.name }),
        },
        { required: ['priorityClassSource', 'priorityClassName'] },
      ),
    },
    {
      required: ['resourceSelectors'],
      rules: [
        {
          rule: '!has(self.failover) || !has(self.failover.application) || (has(self.propagateDeps) && self.propagateDeps)',
          message:
            'failover.application requires propagateDeps: true so that dependencies move with the workload',
          fieldPath: '.propagateDeps',
        },
      ],
    },
  );
}

const columns = [
  { name: 'CONFLICT-RESOLUTION', type: 'string', jsonPath: '.spec.conflictResolution' },
  { name: 'PRIORITY', type: 'string', jsonPath: '.spec.priority' },
  ageColumn,
] as const;

function propagationCrd(kind: KindDescriptor, description: string): CustomResourceDefinition {
  return customResourceDefinition(kind, { description, spec: spec(), status: policyStatus(), columns });
}

export function propagationPolicyCrd(): CustomResourceDefinition {
  return propagationCrd(propagationPolicyKind, 'Propagates resources of its namespace to member clusters.');
}

export function clusterPropagationPolicyCrd(): CustomResourceDefinition {
  return propagationCrd(
    clusterPropagationPolicyKind,
    'Propagates cluster-scoped resources, and resources of any non-system namespace, to member clusters.',
  );
}
