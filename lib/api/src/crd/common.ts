/** Schemas of the shapes every group shares: conditions, taints, tolerations, selectors, quantities. */
import { arr, int32, int64, mapOf, obj, oneOf, str, time, type Schema } from './schema.ts';

const dnsSubdomainPrefix = '([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?';
const qualifiedNameBody = `${dnsSubdomainPrefix}[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?`;
const reasonBody = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';

export const patterns = {
  /** RFC 1123 label: lower-case alphanumerics and '-'. */
  dnsLabel: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  /** An RFC 1123 label, or empty. */
  optionalDnsLabel: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$',
  /** A label key: optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
  qualifiedName: `^${qualifiedNameBody}$`,
  /** A label key, or empty. */
  optionalQualifiedName: `^(${qualifiedNameBody})?$`,
  /** A label value (may be empty). */
  labelValue: '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$',
  /** metav1.Condition type. */
  conditionType: `^${dnsSubdomainPrefix}(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`,
  /** CamelCase machine-readable reason (conditions, eviction tasks). */
  reason: `^${reasonBody}$`,
  /** A reason, or empty: Go clients write an unset metav1.Condition reason as "". */
  optionalReason: `^(${reasonBody})?$`,
  /** `group/version`, or `version` for the core group. */
  apiVersion: `^${dnsSubdomainPrefix}[a-z0-9]([-a-z0-9]*[a-z0-9])?$`,
  /**
   * A kind: the API server requires a CustomResourceDefinition's kind, lower-cased, to be a
   * DNS-1035 label, so any kind that can be served matches (and `Deploy ment` does not).
   */
  kind: '^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$',
  quantity:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
} as const;

/** Longest label key: 253-character prefix, '/', 63-character name. */
export const maxQualifiedNameLength = 317;
export const maxLabelValueLength = 63;

/**
 * Upper bounds on the lists, maps and strings users write. Upstream's Go types declare almost
 * none; without them a typo or a runaway generator can store an object that every controller
 * walks on every reconcile, and the API server costs CEL rules as if each list filled a whole
 * request. Each bound is far above what a real object holds; Kubernetes' own limits where it has
 * them. Lists only the product writes (binding placement results, aggregated status, API
 * enablements) are left unbounded: they grow with the federation and its clusters.
 */
export const bounds = {
  /** Object names: a DNS subdomain (Kubernetes' limit). */
  name: 253,
  /** Namespace names: a DNS label (Kubernetes' limit). */
  namespace: 63,
  /** Kinds: a DNS-1035 label once lower-cased (the API server's rule for CRD kinds). */
  kind: 63,
  /** `group/version`: a DNS subdomain, '/', a DNS label. */
  apiVersion: 317,
  /** metav1.Condition limits, as Kubernetes' generated CRDs declare them. */
  conditionType: 316,
  conditionReason: 1024,
  conditionMessage: 32768,
  /**
   * Cluster names in one list (affinities, exclusions, suspensions, remedies): far more clusters
   * than a federation holds in practice; a longer list is better written as a label selector.
   */
  clusterNames: 1000,
  /** Resource selectors in one policy: a policy names a few kinds; 100 leaves room for listing objects by name. */
  resourceSelectors: 100,
  /** Requirements in one label or field selector, and labels in one matchLabels. */
  selectorRequirements: 100,
  /** Values in one selector requirement: as many as cluster names, since labels often name clusters. */
  selectorValues: 1000,
  /** Taints on a cluster or in a ClusterTaintPolicy: a handful in practice. */
  taints: 100,
  /** Zones of one cluster. */
  zones: 100,
  /** Condition matches in one ClusterTaintPolicy condition list or Remedy. */
  conditionMatches: 64,
  /** Entries of small hand-written lists: dependent overrides, preserved labels, resource-model grades and ranges, proxy headers. */
  smallList: 100,
  /** Remedy actions: one value is defined; room for more to come. */
  remedyActions: 16,
  /**
   * Workloads one WorkloadRebalancer names: the batch a person moves back after a recovery; more
   * is better split over several rebalancers (each one walks its whole list on every reconcile).
   */
  rebalancedWorkloads: 1000,
  /** Hosts, TLS entries, rules and paths of one MultiClusterIngress (Ingress itself has no limit). */
  ingressEntries: 1000,
  /** URLs, HTTP header values, JSONPath templates and ingress paths. */
  url: 2048,
} as const;

export function labelKey(description: string): Schema {
  return str(description, { pattern: patterns.qualifiedName, maxLength: maxQualifiedNameLength });
}

export function labelValue(description: string): Schema {
  return str(description, { pattern: patterns.labelValue, maxLength: maxLabelValueLength });
}

/** A list of strings the product writes; unbounded (see {@link bounds}). */
export function stringList(description: string): Schema {
  return arr(description, { type: 'string' });
}

/** A list of object names users write. */
export function nameList(description: string, maxItems: number): Schema {
  return arr(description, { type: 'string', maxLength: bounds.name }, { maxItems });
}

/** A list of cluster names users write. */
export function clusterNameList(description: string): Schema {
  return nameList(description, bounds.clusterNames);
}

/** A metav1.Condition type, e.g. `Ready` or `example.com/Maintenance`. */
export function conditionType(description: string): Schema {
  return str(description, {
    pattern: patterns.conditionType,
    minLength: 1,
    maxLength: bounds.conditionType,
  });
}

export const conditionStatusValues = ['True', 'False', 'Unknown'] as const;

/**
 * A condition list keyed by type (two entries of one type are refused, as for built-in kinds).
 * `strict`: metav1.Condition with the validation its generated CRDs carry. `loose` (Cluster
 * conditions): the same bounds and patterns, but only type and status required and an empty reason
 * allowed, since other parties' agents write them and upstream's aggregated server checks nothing
 * (a Go client sends an unset reason or message as "").
 */
export function conditionList(description: string, validation: 'strict' | 'loose' = 'strict'): Schema {
  const strict = validation === 'strict';
  const condition = obj(
    'One aspect of the current state.',
    {
      type: conditionType('Type of condition in CamelCase or in foo.example.com/CamelCase.'),
      status: oneOf('Status of the condition.', conditionStatusValues),
      observedGeneration: int64('The .metadata.generation the condition was set for.', { minimum: 0 }),
      lastTransitionTime: time('When the status last changed.'),
      reason: str('Programmatic identifier of the last transition, in CamelCase.', {
        pattern: strict ? patterns.reason : patterns.optionalReason,
        ...(strict ? { minLength: 1 } : {}),
        maxLength: bounds.conditionReason,
      }),
      message: str('Human-readable details of the last transition.', {
        maxLength: bounds.conditionMessage,
      }),
    },
    { required: strict ? ['type', 'status', 'lastTransitionTime', 'reason', 'message'] : ['type', 'status'] },
  );
  return arr(description, condition, { listType: 'map', listMapKeys: ['type'] });
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
    { maxItems: bounds.taints, listType: 'map', listMapKeys: ['key', 'effect'] },
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

/** Values of a selector requirement, as users write them. */
export function selectorValues(description: string): Schema {
  return arr(
    description,
    { type: 'string', maxLength: maxLabelValueLength },
    { maxItems: bounds.selectorValues, listType: 'atomic' },
  );
}

/** metav1.LabelSelector. */
export function labelSelector(description: string): Schema {
  return obj(
    description,
    {
      matchLabels: mapOf('Labels that must all be present with these values.', labelValue('Label value.'), {
        maxProperties: bounds.selectorRequirements,
      }),
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
            values: selectorValues('Values for In and NotIn; empty for Exists and DoesNotExist.'),
          },
          { required: ['key', 'operator'] },
        ),
        { maxItems: bounds.selectorRequirements, listType: 'atomic' },
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
