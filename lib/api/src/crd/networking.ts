/** MultiClusterIngress CRD: the spec is networking.k8s.io/v1 IngressSpec. */
import { multiClusterIngressKind } from '../networking.ts';
import { bounds, patterns, stringList } from './common.ts';
import { customResourceDefinition, type CustomResourceDefinition } from './definition.ts';
import { arr, int32, obj, oneOf, str, type Schema } from './schema.ts';

function backend(description: string): Schema {
  return obj(
    description,
    {
      service: obj(
        'A Service in the namespace of the ingress.',
        {
          name: str('Service name.', { minLength: 1, maxLength: bounds.namespace }),
          port: obj(
            'Service port, by name or number.',
            {
              // An IANA service name, as Service port names are.
              name: str('Port name; not together with number.', { maxLength: 15 }),
              number: int32('Port number; not together with name.', { minimum: 1, maximum: 65535 }),
            },
            {
              mapType: 'atomic',
              rules: [
                {
                  rule: '!has(self.name) || !has(self.number)',
                  message: 'name and number are mutually exclusive',
                },
              ],
            },
          ),
        },
        { required: ['name'] },
      ),
      resource: obj(
        'Another resource in the namespace of the ingress.',
        {
          apiGroup: str('API group; empty for the core group.', { maxLength: bounds.name }),
          kind: str('Kind.', { pattern: patterns.kind, minLength: 1, maxLength: bounds.kind }),
          name: str('Name.', { minLength: 1, maxLength: bounds.name }),
        },
        { required: ['kind', 'name'], mapType: 'atomic' },
      ),
    },
    {
      rules: [
        {
          rule: 'has(self.service) != has(self.resource)',
          message: 'exactly one of service and resource must be set',
        },
      ],
    },
  );
}

function spec(): Schema {
  return obj('The ingress, as for a networking.k8s.io/v1 Ingress.', {
    ingressClassName: str('IngressClass that serves the ingress.', { maxLength: bounds.name }),
    defaultBackend: backend('Backend for requests no rule matches.'),
    tls: arr(
      'TLS settings.',
      obj('TLS for some hosts.', {
        hosts: arr(
          'Hosts the certificate covers.',
          { type: 'string', maxLength: bounds.name },
          { maxItems: bounds.ingressEntries, listType: 'atomic' },
        ),
        secretName: str('Secret holding the certificate.', { maxLength: bounds.name }),
      }),
      { maxItems: bounds.ingressEntries, listType: 'atomic' },
    ),
    rules: arr(
      'Host rules.',
      obj('Routes requests for one host.', {
        host: str('Fully qualified host name, or a wildcard such as *.example.com.', {
          maxLength: bounds.name,
        }),
        http: obj(
          'HTTP routes.',
          {
            paths: arr(
              'Paths and their backends.',
              obj(
                'Routes one path.',
                {
                  path: str('Path to match; must start with /.', { maxLength: bounds.url }),
                  pathType: oneOf('How the path is matched.', ['Exact', 'Prefix', 'ImplementationSpecific']),
                  backend: backend('Where matching requests go.'),
                },
                { required: ['pathType', 'backend'] },
              ),
              { maxItems: bounds.ingressEntries, listType: 'atomic' },
            ),
          },
          { required: ['paths'] },
        ),
      }),
      { maxItems: bounds.ingressEntries, listType: 'atomic' },
    ),
  });
}

function status(): Schema {
  return obj('Load balancer state and traffic blocking.', {
    loadBalancer: obj('The load balancer of the ingress.', {
      ingress: arr(
        'Ingress points.',
        obj('One ingress point.', {
          ip: str('IP address.'),
          hostname: str('Host name.'),
          ports: arr(
            'Ports.',
            obj(
              'A port.',
              {
                port: int32('Port number.'),
                protocol: oneOf('Protocol.', ['TCP', 'UDP', 'SCTP']),
                error: str('Problem with the port.'),
              },
              { required: ['port', 'protocol'] },
            ),
            { listType: 'atomic' },
          ),
        }),
        { listType: 'atomic' },
      ),
    }),
    trafficBlockClusters: stringList('Clusters whose backends are kept out of the load balancer.'),
    serviceLocations: arr(
      'Clusters each backend Service runs in.',
      obj(
        'Where one Service runs.',
        { name: str('Service name.', { minLength: 1 }), clusters: stringList('Clusters.') },
        { required: ['name'] },
      ),
    ),
  });
}

export function multiClusterIngressCrd(): CustomResourceDefinition {
  return customResourceDefinition(multiClusterIngressKind, {
    description: 'An Ingress spanning member clusters.',
    spec: spec(),
    status: status(),
  });
}
