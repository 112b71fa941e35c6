/**
 * Cluster CRD. Upstream serves Clusters from an aggregated API server whose Go code validates
 * and defaults them; here the same rules are schema and CEL. What a CRD cannot do (moving the
 * deprecated `zone` into `zones`, stamping `timeAdded` on NoExecute taints, default resource
 * models) is left to the readers of the object.
 */
import { clusterKind } from '../cluster.ts';
import {
  bounds,
  labelValue,
  conditionList,
  maxLabelValueLength,
  maxQualifiedNameLength,
  patterns,
  quantity,
  resourceList,
  taintList,
} from './common.ts';
import { ageColumn, customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { arr, bool, int, int32, mapOf, obj, oneOf, str, type Schema } from './schema.ts';

function secretRef(description: string): Schema {
  return obj(
    description,
    {
      namespace: str('Namespace of the Secret.', { minLength: 1, maxLength: bounds.namespace }),
      name: str('Name of the Secret.', { minLength: 1, maxLength: bounds.name }),
    },
    { required: ['namespace', 'name'] },
  );
}

function spec(): Schema {
  return obj(
    'How to reach and treat the member cluster.',
    {
      id: str('Unique identity of the cluster (the agent uses the kube-system namespace UID).', {
        maxLength: 128000,
      }),
      syncMode: oneOf('Push: the control plane applies Works; Pull: the agent in the member does.', [
        'Push',
        'Pull',
      ]),
      apiEndpoint: str('URL of the member API server.', {
        maxLength: bounds.url,
        rules: [
          {
            rule:
              "self == '' || (isURL(self) && url(self).getHostname() != '' && " +
              "!self.contains('?') && !self.contains('#') && !self.matches('^[^/]*//[^/]*@'))",
            message: 'apiEndpoint must be a URL with a host and without user info, query or fragment',
          },
        ],
      }),
      secretRef: secretRef('Secret with keys token and caBundle for reaching the member.'),
      impersonatorSecretRef: secretRef('Secret with key token used to impersonate users on the member.'),
      insecureSkipTLSVerification: bool('Skip verifying the member API server certificate.', {
        default: false,
      }),
      proxyURL: str('Proxy (http, https or socks5) for reaching the member.', {
        maxLength: bounds.url,
        rules: [
          {
            rule: "self == '' || (isURL(self) && url(self).getScheme() in ['http', 'https', 'socks5'])",
            message: 'proxyURL must be an http, https or socks5 URL',
          },
        ],
      }),
      proxyHeader: mapOf(
        'Headers sent to the proxy; several values are comma-separated.',
        str('Header value.', { maxLength: bounds.url }),
        { maxProperties: bounds.smallList },
      ),
      provider: labelValue('Cloud provider of the cluster.'),
      region: labelValue('Region of the cluster.'),
      zone: labelValue('Deprecated: use zones.'),
      zones: arr(
        'Zones of the cluster.',
        { type: 'string', pattern: patterns.labelValue, maxLength: maxLabelValueLength },
        { maxItems: bounds.zones },
      ),
      taints: taintList('Taints on the cluster; key and effect identify a taint.'),
      resourceModels: arr(
        'Grades of node shapes used to count allocatable replicas.',
        obj(
          'One grade.',
          {
            grade: int('Grade index.', { minimum: 0 }),
            ranges: arr(
              'Resource ranges of the grade.',
              obj(
                'A resource range [min, max).',
                {
                  name: str('Resource name, e.g. cpu or memory.', {
                    minLength: 1,
                    maxLength: maxQualifiedNameLength,
                  }),
                  min: quantity('Inclusive lower bound.'),
                  max: quantity('Exclusive upper bound.'),
                },
                { required: ['name', 'min', 'max'] },
              ),
              { maxItems: bounds.smallList },
            ),
          },
          { required: ['grade', 'ranges'] },
        ),
        { maxItems: bounds.smallList },
      ),
    },
    {
      required: ['syncMode'],
      rules: [
        {
          rule: "!has(self.zone) || self.zone == '' || !has(self.zones) || size(self.zones) == 0",
          message: 'zone and zones cannot both be set',
          fieldPath: '.zone',
        },
      ],
    },
  );
}

function status(): Schema {
  return obj('Observed state of the cluster.', {
    kubernetesVersion: str('Version of the member API server.'),
    apiEnablements: arr(
      'APIs the member serves.',
      obj(
        'Resources of one group version.',
        {
          groupVersion: str('Group and version, e.g. apps/v1.'),
          resources: arr(
            'Resources served.',
            obj(
              'A resource.',
              { name: str('Plural name.'), kind: str('Kind.') },
              { required: ['name', 'kind'] },
            ),
          ),
        },
        { required: ['groupVersion'] },
      ),
    ),
    conditions: conditionList(
      'Ready, CompleteAPIEnablements, ServiceDomainNameResolutionReady and others.',
      'loose',
    ),
    nodeSummary: obj('Node counts.', {
      totalNum: int32('Number of nodes.'),
      readyNum: int32('Number of ready nodes.'),
    }),
    resourceSummary: obj('Resources of the cluster.', {
      allocatable: resourceList('Total allocatable resources.'),
      allocating: resourceList('Resources requested by pending pods.'),
      allocated: resourceList('Resources requested by scheduled pods.'),
      allocatableModelings: arr(
        'Nodes per resource-model grade.',
        obj(
          'Count for one grade.',
          { grade: int('Grade index.', { minimum: 0 }), count: int('Number of nodes.') },
          { required: ['grade', 'count'] },
        ),
      ),
    }),
    remedyActions: arr('Remedy actions to take for the cluster, e.g. TrafficControl.', { type: 'string' }),
  });
}

export function clusterCrd(): CustomResourceDefinition {
  return customResourceDefinition(clusterKind, {
    description: 'A member cluster as the control plane sees it.',
    name: str('Cluster name: a DNS label of at most 48 characters.', {
      pattern: patterns.dnsLabel,
      maxLength: 48,
    }),
    spec: spec(),
    status: status(),
    columns: [
      { name: 'VERSION', type: 'string', jsonPath: '.status.kubernetesVersion' },
      { name: 'MODE', type: 'string', jsonPath: '.spec.syncMode' },
      { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      ageColumn,
      { name: 'ZONES', type: 'string', jsonPath: '.spec.zones', priority: 1 },
      { name: 'REGION', type: 'string', jsonPath: '.spec.region', priority: 1 },
      { name: 'PROVIDER', type: 'string', jsonPath: '.spec.provider', priority: 1 },
      { name: 'API-ENDPOINT', type: 'string', jsonPath: '.spec.apiEndpoint', priority: 1 },
      { name: 'PROXY-URL', type: 'string', jsonPath: '.spec.proxyURL', priority: 1 },
    ],
  });
}
