/** ClusterTaintPolicy CRD; like upstream's, it has no status (the outcome is the clusters' taints). */
import { clusterTaintPolicyKind } from '../taint-policy.ts';
import {
  bounds,
  clusterTaintEffects,
  conditionStatusValues,
  conditionType,
  labelKey,
  labelValue,
} from './common.ts';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { clusterAffinity } from './placement.ts';
import { arr, int32, obj, oneOf, type Schema } from './schema.ts';

function matchConditions(description: string): Schema {
  return arr(
    description,
    obj(
      'Holds when the cluster has the condition and its status is (not) one of the values.',
      {
        conditionType: conditionType('Cluster condition type, e.g. Ready.'),
        operator: oneOf('In or NotIn.', ['In', 'NotIn']),
        statusValues: arr('Condition statuses.', oneOf('A condition status.', conditionStatusValues), {
          maxItems: conditionStatusValues.length,
          listType: 'set',
        }),
      },
      { required: ['conditionType', 'operator', 'statusValues'] },
    ),
    { maxItems: bounds.conditionMatches },
  );
}

function spec(): Schema {
  return obj(
    'When to add and remove which taints on which clusters.',
    {
      targetClusters: clusterAffinity('Clusters the policy manages; unset means all.'),
      addOnConditions: matchConditions('Add the taints when all of these hold; empty never adds.'),
      removeOnConditions: matchConditions('Remove the taints when all of these hold; empty never removes.'),
      addAfterSeconds: int32(
        'Seconds addOnConditions must hold before the taints are added; unset or 0 adds at once.',
        { minimum: 0 },
      ),
      taints: arr(
        'Taints to add or remove; key and effect identify a taint.',
        obj(
          'A taint.',
          {
            key: labelKey('Taint key.'),
            effect: oneOf('Taint effect.', clusterTaintEffects),
            value: labelValue('Taint value.'),
          },
          { required: ['key', 'effect'] },
        ),
        { minItems: 1, maxItems: bounds.taints, listType: 'map', listMapKeys: ['key', 'effect'] },
      ),
    },
    { required: ['taints'] },
  );
}

export function clusterTaintPolicyCrd(): CustomResourceDefinition {
  return customResourceDefinition(clusterTaintPolicyKind, {
    description:
      'Taints clusters by their status conditions; deleting the policy leaves its taints in place.',
    spec: spec(),
  });
}
