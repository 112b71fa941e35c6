/** Remedy CRD. */
import { remedyKind } from '../remedy.ts';
import { stringList } from './common.ts';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { policyStatus } from './policy.ts';
import { arr, obj, oneOf, str, type Schema } from './schema.ts';

function spec(): Schema {
  return obj('Which clusters, under which conditions, get which actions.', {
    clusterAffinity: obj('Clusters the remedy applies to; unset means all, an empty list none.', {
      clusterNames: stringList('Cluster names.'),
    }),
    decisionMatches: arr(
      'Any match triggers the actions; unset triggers them at once.',
      obj('A decision match.', {
        clusterConditionMatch: obj(
          'Compares a cluster condition with a status.',
          {
            conditionType: str('Cluster condition type, e.g. ServiceDomainNameResolutionReady.', {
              minLength: 1,
            }),
            operator: oneOf('Equal or NotEqual.', ['Equal', 'NotEqual']),
            conditionStatus: str('Status to compare with: True, False or Unknown.'),
          },
          { required: ['conditionType', 'operator', 'conditionStatus'] },
        ),
      }),
    ),
    actions: arr('Actions to take.', oneOf('An action.', ['TrafficControl'])),
  });
}

export function remedyCrd(): CustomResourceDefinition {
  return customResourceDefinition(remedyKind, {
    description:
      'Actions (such as taking a cluster out of ingress traffic) for clusters whose conditions match.',
    spec: spec(),
    status: policyStatus(),
  });
}
