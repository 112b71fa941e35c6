/** Work CRD: manifests for one member cluster, and what became of them there. */
import { workKind } from '../work.ts';
import { conditionList } from './common.ts';
import { ageColumn, customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { arbitrary, arr, bool, embeddedObject, int, obj, oneOf, str, type Schema } from './schema.ts';

export const resourceHealthValues = ['Healthy', 'Unhealthy', 'Unknown'] as const;

/**
 * The control plane writes one manifest per Work; a hand-written Work with more objects than this
 * is better split (each reconcile applies every manifest in turn).
 */
const maxWorkManifests = 1000;

function spec(): Schema {
  return obj('What to apply in the member cluster.', {
    workload: obj('The objects to apply.', {
      manifests: arr('Complete Kubernetes objects.', embeddedObject('One object to apply.'), {
        maxItems: maxWorkManifests,
      }),
    }),
    suspendDispatching: bool('Stop applying the manifests (status is still collected).'),
    preserveResourcesOnDeletion: bool('Keep the member objects when the Work is deleted.'),
  });
}

function status(): Schema {
  return obj('What happened in the member cluster.', {
    conditions: conditionList('Applied, Dispatching and others.'),
    manifestStatuses: arr(
      'Status of each applied object.',
      obj(
        'Status of one object.',
        {
          identifier: obj(
            'Which manifest the entry is about.',
            {
              ordinal: int('Index of the manifest in spec.workload.manifests.', { minimum: 0 }),
              group: str('API group; empty for the core group.'),
              version: str('API version.'),
              kind: str('Kind.'),
              resource: str('Resource (plural) name; may be empty.'),
              namespace: str('Namespace; empty for cluster-scoped objects.'),
              name: str('Name.'),
            },
            { required: ['ordinal', 'version', 'kind', 'resource', 'name'] },
          ),
          status: arbitrary('Status reflected from the member object.'),
          health: oneOf('Health of the member object.', resourceHealthValues),
        },
        { required: ['identifier'] },
      ),
    ),
  });
}

export function workCrd(): CustomResourceDefinition {
  return customResourceDefinition(workKind, {
    description: 'Manifests to apply in one member cluster, kept in the execution namespace of that cluster.',
    spec: spec(),
    status: status(),
    columns: [
      { name: 'WORKLOAD-KIND', type: 'string', jsonPath: '.spec.workload.manifests[*].kind' },
      { name: 'APPLIED', type: 'string', jsonPath: '.status.conditions[?(@.type=="Applied")].status' },
      ageColumn,
    ],
  });
}
