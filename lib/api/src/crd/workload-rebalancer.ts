/** WorkloadRebalancer CRD: upstream's fields, with bounds and the shapes of names and kinds checked. */
import { workloadRebalancerKind } from '../workload-rebalancer.ts';
import { bounds, patterns } from './common.ts';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { arr, int32, int64, obj, oneOf, str, time, type Schema } from './schema.ts';

function workloadReference(description: string): Schema {
  return obj(
    description,
    {
      apiVersion: str('API version of the workload, e.g. apps/v1.', {
        pattern: patterns.apiVersion,
        minLength: 1,
        maxLength: bounds.apiVersion,
      }),
      kind: str('Kind of the workload, e.g. Deployment.', {
        pattern: patterns.kind,
        minLength: 1,
        maxLength: bounds.kind,
      }),
      namespace: str('Namespace of the workload; empty for a cluster-scoped workload.', {
        pattern: patterns.optionalDnsLabel,
        maxLength: bounds.namespace,
      }),
      name: str('Name of the workload.', { minLength: 1, maxLength: bounds.name }),
    },
    { required: ['apiVersion', 'kind', 'name'] },
  );
}

function spec(): Schema {
  return obj(
    'Which workloads to place afresh, and how long to keep the rebalancer once done.',
    {
      workloads: arr(
        'Workloads to place afresh; at least one.',
        workloadReference('A workload (resource template).'),
        { minItems: 1, maxItems: bounds.rebalancedWorkloads },
      ),
      ttlSecondsAfterFinished: int32(
        'Seconds after finishing at which the rebalancer is deleted; unset keeps it, 0 deletes it at once.',
        { minimum: 0 },
      ),
    },
    { required: ['workloads'] },
  );
}

function status(): Schema {
  return obj('What became of each workload.', {
    observedWorkloads: arr(
      'One entry per workload, sorted by apiVersion, kind, namespace and name.',
      obj(
        'A workload and the result of its rebalance.',
        {
          workload: workloadReference('The workload.'),
          result: oneOf('Unset while pending: Successful or Failed.', ['Successful', 'Failed']),
          reason: str('Why the rebalance failed, e.g. ReferencedBindingNotFound.', {
            pattern: patterns.reason,
            maxLength: bounds.conditionReason,
          }),
        },
        { required: ['workload'] },
      ),
    ),
    observedGeneration: int64('The .metadata.generation the status is about.', { minimum: 0 }),
    finishTime: time('When every workload last had a result.'),
  });
}

export function workloadRebalancerCrd(): CustomResourceDefinition {
  return customResourceDefinition(workloadRebalancerKind, {
    description:
      'Places the listed workloads afresh, disregarding where they run now, and reports per workload.',
    spec: spec(),
    status: status(),
  });
}
