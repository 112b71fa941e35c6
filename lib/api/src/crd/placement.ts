/**
 * Schemas of the policy shapes bindings copy from their policies: cluster affinity, placement
 * and failover behaviour. The CEL rules stand in for upstream's validating webhook.
 */
import {
  bounds,
  clusterNameList,
  labelKey,
  labelSelector,
  maxQualifiedNameLength,
  patterns,
  selectorValues,
  toleration,
} from './common.ts';
import type { DeprecatedPurgeMode, PurgeMode } from '../policy.ts';
import { arr, int, int32, int64, obj, oneOf, str, type Schema, type ValidationRule } from './schema.ts';

/** Upper bounds on lists that CEL rules iterate, so that rule cost stays within budget. */
export const limits = {
  clusterAffinities: 64,
  overflowAffinities: 16,
  spreadConstraints: 16,
  clusterTolerations: 64,
} as const;

function fieldSelector(): Schema {
  return obj('Selects clusters by their provider, region and zones.', {
    matchExpressions: arr(
      'Requirements, ANDed.',
      obj(
        'A requirement on one cluster field.',
        {
          key: oneOf('Cluster field: provider, region or zone.', ['provider', 'region', 'zone']),
          operator: oneOf("The field's relationship to the values.", ['In', 'NotIn']),
          values: selectorValues('Values to compare with.'),
        },
        { required: ['key', 'operator'] },
      ),
      { maxItems: bounds.selectorRequirements },
    ),
  });
}

/** The properties of ClusterAffinity, also inlined into affinity terms. */
function clusterAffinityProperties(): Record<string, Schema> {
  return {
    labelSelector: labelSelector('Selects clusters by labels; an empty selector matches all.'),
    fieldSelector: fieldSelector(),
    clusterNames: clusterNameList('Clusters to select; empty means no restriction by name.'),
    exclude: clusterNameList('Clusters never selected.'),
  };
}

export function clusterAffinity(description: string): Schema {
  return obj(description, clusterAffinityProperties());
}

function affinityName(): Schema {
  return str('Name of the cluster group, a label key of at most 32 characters.', {
    pattern: patterns.qualifiedName,
    minLength: 1,
    maxLength: 32,
  });
}

const inlineAffinityNotEmpty =
  'has(self.labelSelector) || has(self.fieldSelector) || ' +
  '(has(self.clusterNames) && size(self.clusterNames) > 0) || (has(self.exclude) && size(self.exclude) > 0)';

function clusterAffinityTerm(): Schema {
  const overflow = obj(
    'A group used, in order, when the term lacks capacity.',
    { affinityName: affinityName(), ...clusterAffinityProperties() },
    { required: ['affinityName'] },
  );
  return obj(
    'A named group of clusters.',
    {
      affinityName: affinityName(),
      ...clusterAffinityProperties(),
      overflowAffinities: arr('Groups to spill replicas into, in order, when this one is full.', overflow, {
        maxItems: limits.overflowAffinities,
        listType: 'map',
        listMapKeys: ['affinityName'],
      }),
    },
    {
      required: ['affinityName'],
      rules: [
        {
          rule: `!has(self.overflowAffinities) || size(self.overflowAffinities) == 0 || ${inlineAffinityNotEmpty}`,
          message: 'a term with overflowAffinities must select clusters itself',
          fieldPath: '.overflowAffinities',
        },
      ],
    },
  );
}

/** The field a spread constraint groups by, with "neither field nor label" meaning cluster. */
function spreadFieldOf(v: string): string {
  return (
    `(has(${v}.spreadByField) ? ${v}.spreadByField : ` +
    `(has(${v}.spreadByLabel) && ${v}.spreadByLabel != '' ? '' : 'cluster'))`
  );
}

function spreadConstraints(): Schema {
  const constraint = obj(
    'Spreads the placement over groups of clusters.',
    {
      spreadByField: oneOf('Cluster field to group by; not together with spreadByLabel.', [
        'cluster',
        'region',
        'zone',
        'provider',
      ]),
      spreadByLabel: str('Cluster label key to group by; not together with spreadByField.', {
        pattern: patterns.optionalQualifiedName,
        maxLength: maxQualifiedNameLength,
      }),
      maxGroups: int('Most groups to select; 0 means no upper limit.', { minimum: 0 }),
      minGroups: int('Fewest groups to select.', { minimum: 0, default: 1 }),
    },
    {
      rules: [
        {
          rule: "!has(self.spreadByField) || !has(self.spreadByLabel) || self.spreadByLabel == ''",
          message: 'spreadByField and spreadByLabel are mutually exclusive',
          fieldPath: '.spreadByLabel',
        },
        {
          rule: '!has(self.maxGroups) || self.maxGroups == 0 || !has(self.minGroups) || self.maxGroups >= self.minGroups',
          message: 'maxGroups must not be less than minGroups',
          fieldPath: '.maxGroups',
        },
      ],
    },
  );
  return arr('Constraints on how the selected clusters are spread.', constraint, {
    maxItems: limits.spreadConstraints,
    rules: [
      {
        rule: `self.all(c, ${spreadFieldOf('c')} == '' || self.exists_one(d, ${spreadFieldOf('d')} == ${spreadFieldOf('c')}))`,
        message:
          'each spreadByField may be used by one constraint only (a constraint without spreadByField and spreadByLabel counts as cluster)',
      },
      {
        rule: `!self.exists(c, has(c.spreadByField)) || self.exists(c, ${spreadFieldOf('c')} == 'cluster')`,
        message: 'a cluster spread constraint is required when spreadByField is used',
      },
    ],
  });
}

function replicaScheduling(): Schema {
  return obj(
    'How replicas are assigned to the selected clusters.',
    {
      replicaSchedulingType: oneOf(
        'Duplicated gives every cluster all replicas; Divided splits them.',
        ['Duplicated', 'Divided'],
        {
          default: 'Divided',
        },
      ),
      replicaDivisionPreference: oneOf(
        'With Divided: Aggregated uses as few clusters as possible; Weighted splits by weight.',
        ['Aggregated', 'Weighted'],
      ),
      weightPreference: obj('Cluster weights for Weighted division.', {
        staticWeightList: arr(
          'Fixed weights; a cluster takes the largest weight of the entries it matches.',
          obj(
            'A weight for the clusters an affinity selects.',
            {
              targetCluster: clusterAffinity('Clusters the weight applies to.'),
              weight: int64('Weight, at least 1.', { minimum: 1 }),
            },
            { required: ['targetCluster', 'weight'] },
          ),
          // One entry per cluster at most is ever needed.
          { maxItems: bounds.clusterNames },
        ),
        dynamicWeight: oneOf('Derive weights from this factor instead; the static list is then ignored.', [
          'AvailableReplicas',
        ]),
      }),
    },
    {
      rules: [
        {
          rule: "!has(self.weightPreference) || !has(self.replicaSchedulingType) || self.replicaSchedulingType == 'Divided'",
          message: 'weightPreference is only allowed with replicaSchedulingType Divided',
          fieldPath: '.weightPreference',
        },
      ],
    },
  );
}

const overflowNeedsDynamicDivision =
  '!has(self.clusterAffinities) || ' +
  'self.clusterAffinities.all(t, !has(t.overflowAffinities) || size(t.overflowAffinities) == 0) || ' +
  "(has(self.replicaScheduling) && has(self.replicaScheduling.replicaSchedulingType) && self.replicaScheduling.replicaSchedulingType == 'Divided' && " +
  'has(self.replicaScheduling.replicaDivisionPreference) && ' +
  "(self.replicaScheduling.replicaDivisionPreference == 'Aggregated' || " +
  '(has(self.replicaScheduling.weightPreference) && has(self.replicaScheduling.weightPreference.dynamicWeight))))';

const placementRules: readonly ValidationRule[] = [
  {
    rule: '!has(self.clusterAffinity) || !has(self.clusterAffinities)',
    message: 'clusterAffinity and clusterAffinities are mutually exclusive',
    fieldPath: '.clusterAffinities',
  },
  {
    rule: overflowNeedsDynamicDivision,
    message:
      'overflowAffinities need replicaSchedulingType Divided with Aggregated or dynamic Weighted division',
    fieldPath: '.clusterAffinities',
  },
];

export function placement(description: string): Schema {
  return obj(
    description,
    {
      clusterAffinity: clusterAffinity('Clusters the resource may be placed on; unset means any.'),
      clusterAffinities: arr(
        'Ordered cluster groups; the scheduler moves to the next group only when one cannot fit.',
        clusterAffinityTerm(),
        {
          maxItems: limits.clusterAffinities,
          listType: 'map',
          listMapKeys: ['affinityName'],
        },
      ),
      clusterTolerations: arr('Cluster taints the resource tolerates.', toleration(true), {
        maxItems: limits.clusterTolerations,
      }),
      spreadConstraints: spreadConstraints(),
      replicaScheduling: replicaScheduling(),
      workloadAffinity: obj('Co-locates or separates workloads by a label of the resource template.', {
        affinity: workloadAffinityTerm('Workloads with the same label value go to the same clusters.'),
        antiAffinity: workloadAffinityTerm('Workloads with the same label value go to different clusters.'),
      }),
    },
    { rules: placementRules },
  );
}

function workloadAffinityTerm(description: string): Schema {
  return obj(
    description,
    { groupByLabelKey: labelKey('Label key whose value forms the groups.') },
    {
      required: ['groupByLabelKey'],
    },
  );
}

function statePreservation(): Schema {
  return obj(
    'State to capture from the evicted cluster and inject as labels on the new one.',
    {
      rules: arr(
        'One label per rule.',
        obj(
          'Captures one value.',
          {
            aliasLabelName: labelKey('Label key the captured value is injected under.'),
            jsonPath: str('JSONPath template rooted at the reflected status, e.g. {.jobStatus.jobID}.', {
              minLength: 1,
              maxLength: bounds.url,
            }),
          },
          { required: ['aliasLabelName', 'jsonPath'] },
        ),
        { maxItems: bounds.smallList },
      ),
    },
    { required: ['rules'] },
  );
}

/** The names `Directly` and `Gracefully` had before Karmada v1.15, in that order. */
const deprecatedPurgeModes: readonly DeprecatedPurgeMode[] = ['Immediately', 'Graciously'];

/**
 * A purge mode field: the current names given, plus the names they had before Karmada v1.15
 * (deprecated then, still accepted by v1.18, removed in v1.19), so that what Karmada v1.18
 * accepts is accepted here too. Readers take the old names as the current ones.
 */
export function purgeMode(current: readonly PurgeMode[], x: { readonly default?: PurgeMode } = {}): Schema {
  const names = `${current.slice(0, -1).join(', ')} or ${current.at(-1) ?? ''}`;
  return oneOf(
    `What happens to the workload left behind: ${names}. Immediately and Graciously are the deprecated names of Directly and Gracefully, accepted as Karmada v1.18 does and read as those.`,
    [...current, ...deprecatedPurgeModes],
    x,
  );
}

/** FailoverBehavior; purge modes take the current names and the deprecated pre-v1.15 ones. */
export function failover(description: string): Schema {
  return obj(description, {
    application: obj(
      'Moves the workload away from clusters where it stays unhealthy; unset disables this.',
      {
        decisionConditions: obj('When to move.', {
          tolerationSeconds: int32('How long the workload may be unhealthy before it is moved.', {
            minimum: 0,
            default: 300,
          }),
        }),
        purgeMode: purgeMode(['Directly', 'Gracefully', 'Never'], { default: 'Gracefully' }),
        gracePeriodSeconds: int32(
          'With Gracefully (or Graciously): longest wait before the old copy is removed (600 when unset).',
          { minimum: 1 },
        ),
        blockPredecessorSeconds: int32(
          'How long the scheduler keeps the workload away from the cluster it was moved from (600 when unset; 0 for good).',
          { minimum: 0 },
        ),
        statePreservation: statePreservation(),
      },
      {
        required: ['decisionConditions'],
        rules: [
          {
            rule: "!has(self.gracePeriodSeconds) || (has(self.purgeMode) && self.purgeMode in ['Gracefully', 'Graciously'])",
            message:
              'gracePeriodSeconds is only allowed with purgeMode Gracefully (or its deprecated name Graciously)',
            fieldPath: '.gracePeriodSeconds',
          },
        ],
      },
    ),
    cluster: obj('Tunes how workloads leave a cluster with an untolerated NoExecute taint.', {
      purgeMode: purgeMode(['Directly', 'Gracefully'], { default: 'Gracefully' }),
      statePreservation: statePreservation(),
    }),
  });
}

export function suspendClusters(description: string): Schema {
  return obj(description, { clusterNames: clusterNameList('Clusters to suspend.') });
}

export function conflictResolution(): Schema {
  return oneOf(
    'What to do when the resource already exists in a member cluster: Abort, or Overwrite it.',
    ['Abort', 'Overwrite'],
    { default: 'Abort' },
  );
}
