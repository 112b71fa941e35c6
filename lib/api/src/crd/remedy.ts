/** Remedy CRD; like upstream's, it has no status (the outcome is the clusters' remedyActions). */
import { remedyKind } from '../remedy.ts';
import { bounds, clusterNameList, conditionStatusValues, conditionType } from './common.ts';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { arr, obj, oneOf, type Schema } from './schema.ts';

function spec(): Schema {
  return obj('Which clusters, under which conditions, get which actions.', {
    clusterAffinity: obj('Clusters the remedy applies to; unset means all, an empty list none.', {
      clusterNames: clusterNameList('Cluster names.'),
    }),
    decisionMatches: arr(
      'Any match triggers the actions; unset triggers them at once.',
      obj('A decision match.', {
        clusterConditionMatch: obj(
          'Compares a cluster condition with a status.',
          {
            conditionType: conditionType('Cluster condition type, e.g. ServiceDomainNameResolutionReady.'),
            operator: oneOf('Equal or NotEqual.', ['Equal', 'NotEqual']),
            conditionStatus: oneOf('Status to compare with.', conditionStatusValues),
          },
          { required: ['conditionType', 'operator', 'conditionStatus'] },
        ),
      }),
      { maxItems: bounds.conditionMatches },
    ),
    actions: arr('Actions to take.', oneOf('An action.', ['TrafficControl']), {
      maxItems: bounds.remedyActions,
    }),
  });
}

export function remedyCrd(): CustomResourceDefinition {
  return customResourceDefinition(remedyKind, {
    description:
      'Actions (such as taking a cluster out of ingress traffic) for clusters whose conditions match.',
    spec: spec(),
  });
}
