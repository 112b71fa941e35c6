/** Schemas of the shapes every group shares: conditions, taints, tolerations, selectors, quantities. */
import { arr, int32, int64, mapOf, obj, oneOf, str, time, type Schema } from './schema.ts';

const dnsSubdomainPrefix = '([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?';
const qualifiedNameBody = `${dnsSubdomainPrefix}[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?`;

export const patterns = {
  /** RFC 1123 label: lower-case alphanumerics and '-'. */
  dnsLabel: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  /** A label key: optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
  qualifiedName: `^${qualifiedNameBody}$`,
  /** A label key, or empty. */
  optionalQualifiedName: `^(${qualifiedNameBody})?$`,
  /** A label value (may be empty). */
  labelValue: '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$',
  /** metav1.Condition type. */
  conditionType: `^${dnsSubdomainPrefix}(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`,
  /** CamelCase machine-readable reason (conditions, eviction tasks). */
  reason: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
  quantity:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
} as const;

/** Longest label key: 253-character prefix, '/', 63-character name. */
export const maxQualifiedNameLength = 317;
export const maxLabelValueLength = 63;

export function labelKey(description: string): Schema {
  return str(description, { pattern: patterns.qualifiedName, maxLength: maxQualifiedNameLength });
}

export function labelValue(description: string): Schema {
  return str(description, { pattern: patterns.labelValue, maxLength: maxLabelValueLength });
}

export function stringList(description: string): Schema {
  return arr(description, { type: 'string' });
}

export const conditionStatusValues = ['True', 'False', 'Unknown'] as const;

/** metav1.Condition with the validation its generated CRDs carry. */
export function conditionList(description: string): Schema {
  return arr(
    description,
    obj(
      'One aspect of the current state.',
      {
        type: str('Type of condition in CamelCase or in foo.example.com/CamelCase.', {
          pattern: patterns.conditionType,
          maxLength: 316,
        }),
        status: oneOf('Status of the condition.', conditionStatusValues),
        observedGeneration: int64('The .metadata.generation the condition was set for.', { minimum: 0 }),
        lastTransitionTime: time('When the status last changed.'),
        reason: str('Programmatic identifier of the last transition, in CamelCase.', {
          pattern: patterns.reason,
          minLength: 1,
          maxLength: 1024,
        }),
        message: str('Human-readable details of the last transition.', { maxLength: 32768 }),
      },
      { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
    ),
  );
}

/** A Kubernetes quantity: an integer or a canonical string such as `500m` or `4Gi`. */
export function quantity(description: string): Schema {
  return {
    description,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: patterns.quantity,
    'x-kubernetes-int-or-string': true,
  };
}

export function resourceList(description: string): Schema {
  return mapOf(description, quantity('Amount of the resource.'));
}

/** Cluster taint effects; PreferNoSchedule has no meaning for clusters and is rejected. */
export const clusterTaintEffects = ['NoSchedule', 'NoExecute'] as const;

/** A taint on a cluster; `key` + `effect` identify it (the list is keyed on both). */
export function taintList(description: string): Schema {
  return arr(
    description,
    obj(
      'A taint: clusters repel workloads that do not tolerate it.',
      {
        key: labelKey('Taint key.'),
        value: labelValue('Taint value.'),
        effect: oneOf('What the taint does to workloads that do not tolerate it.', clusterTaintEffects),
        timeAdded: time('When the taint was added; set for NoExecute taints.'),
      },
      { required: ['key', 'effect'] },
    ),
    { listType: 'map', listMapKeys: ['key', 'effect'] },
  );
}

/**
 * core/v1 Toleration. With `validated`, the rules of Kubernetes' toleration validation apply
 * (upstream's admission runs them on policy tolerations); otherwise they are stored as copied.
 */
export function toleration(validated: boolean): Schema {
  const properties = {
    key: str('Taint key the toleration applies to; empty matches every key (operator must be Exists).', {
      pattern: patterns.optionalQualifiedName,
      maxLength: maxQualifiedNameLength,
    }),
    operator: oneOf('Equal (the default) compares values; Exists matches any value.', [
      '',
      'Equal',
      'Exists',
    ]),
    value: str('Taint value the toleration matches; empty with operator Exists.', {
      pattern: patterns.labelValue,
      maxLength: maxLabelValueLength,
    }),
    effect: oneOf('Taint effect to match; empty matches every effect.', [
      '',
      'NoSchedule',
      'PreferNoSchedule',
      'NoExecute',
    ]),
    tolerationSeconds: int64(
      'How long a NoExecute taint is tolerated after it was added; unset means forever.',
    ),
  };
  if (!validated) {
    return obj('Tolerates taints that match key, value and effect.', properties);
  }
  return obj('Tolerates taints that match key, value and effect.', properties, {
    rules: [
      {
        rule: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
        message: 'tolerationSeconds is only allowed with effect NoExecute',
        fieldPath: '.tolerationSeconds',
      },
      {
        rule: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
        message: 'operator must be Exists when key is empty',
        fieldPath: '.operator',
      },
      {
        rule: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
        message: 'value must be empty when operator is Exists',
        fieldPath: '.value',
      },
    ],
  });
}

/** metav1.LabelSelector. */
export function labelSelector(description: string): Schema {
  return obj(
    description,
    {
      matchLabels: mapOf('Labels that must all be present with these values.', labelValue('Label value.')),
      matchExpressions: arr(
        'Requirements that must all hold.',
        obj(
          'A requirement on one label.',
          {
            key: labelKey('Label key the requirement applies to.'),
            operator: oneOf("The key's relationship to the values.", [
              'In',
              'NotIn',
              'Exists',
              'DoesNotExist',
            ]),
            values: arr(
              'Values for In and NotIn; empty for Exists and DoesNotExist.',
              { type: 'string' },
              {
                listType: 'atomic',
              },
            ),
          },
          { required: ['key', 'operator'] },
        ),
        { listType: 'atomic' },
      ),
    },
    { mapType: 'atomic' },
  );
}

/** core/v1 NodeSelector, stored as copied from a pod template. */
export function nodeSelector(description: string): Schema {
  const requirement = obj(
    'A requirement on a node label or field.',
    {
      key: str('Label or field key.'),
      operator: oneOf("The key's relationship to the values.", [
        'In',
        'NotIn',
        'Exists',
        'DoesNotExist',
        'Gt',
        'Lt',
      ]),
      values: arr('Values to compare with.', { type: 'string' }, { listType: 'atomic' }),
    },
    { required: ['key', 'operator'] },
  );
  return obj(
    description,
    {
      nodeSelectorTerms: arr(
        'Terms, ORed.',
        obj(
          'Requirements, ANDed.',
          {
            matchExpressions: arr('Requirements on node labels.', requirement, { listType: 'atomic' }),
            matchFields: arr('Requirements on node fields.', requirement, { listType: 'atomic' }),
          },
          { mapType: 'atomic' },
        ),
        { listType: 'atomic' },
      ),
    },
    { required: ['nodeSelectorTerms'], mapType: 'atomic' },
  );
}

/** A non-negative replica count. */
export function replicas(description: string): Schema {
  return int32(description, { minimum: 0 });
}
