/**
 * networking.karmada.io/v1alpha1 MultiClusterIngress: an Ingress spanning clusters. The spec is
 * networking.k8s.io/v1 IngressSpec; the status adds which clusters get no traffic.
 */
import { defineKind } from './kind.ts';
import type { KarmadaObject } from './meta.ts';

export interface ServiceBackendPort {
  /** Not together with `number`. */
  readonly name?: string;
  readonly number?: number;
}

export interface IngressServiceBackend {
  readonly name: string;
  readonly port?: ServiceBackendPort;
}

export interface TypedLocalObjectReference {
  readonly apiGroup?: string;
  readonly kind: string;
  readonly name: string;
}

/** Exactly one of `service` and `resource`. */
export interface IngressBackend {
  readonly service?: IngressServiceBackend;
  readonly resource?: TypedLocalObjectReference;
}

export type PathType = 'Exact' | 'Prefix' | 'ImplementationSpecific';

export interface HTTPIngressPath {
  readonly path?: string;
  readonly pathType: PathType;
  readonly backend: IngressBackend;
}

export interface HTTPIngressRuleValue {
  readonly paths: readonly HTTPIngressPath[];
}

export interface IngressRule {
  readonly host?: string;
  readonly http?: HTTPIngressRuleValue;
}

export interface IngressTLS {
  readonly hosts?: readonly string[];
  readonly secretName?: string;
}

export interface MultiClusterIngressSpec {
  readonly ingressClassName?: string;
  readonly defaultBackend?: IngressBackend;
  readonly tls?: readonly IngressTLS[];
  readonly rules?: readonly IngressRule[];
}

export interface IngressPortStatus {
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly error?: string;
}

export interface IngressLoadBalancerIngress {
  readonly ip?: string;
  readonly hostname?: string;
  readonly ports?: readonly IngressPortStatus[];
}

export interface IngressLoadBalancerStatus {
  readonly ingress?: readonly IngressLoadBalancerIngress[];
}

/** Where one backend Service of the ingress runs. */
export interface ServiceLocation {
  readonly name: string;
  readonly clusters?: readonly string[];
}

export interface MultiClusterIngressStatus {
  readonly loadBalancer?: IngressLoadBalancerStatus;
  /** Clusters whose backends are left out of the load balancer (remedy action TrafficControl). */
  readonly trafficBlockClusters?: readonly string[];
  readonly serviceLocations?: readonly ServiceLocation[];
}

export type MultiClusterIngress = KarmadaObject<MultiClusterIngressSpec, MultiClusterIngressStatus>;

export const multiClusterIngressKind = defineKind<MultiClusterIngress>({
  group: 'networking.karmada.io',
  version: 'v1alpha1',
  kind: 'MultiClusterIngress',
  plural: 'multiclusteringresses',
  shortNames: ['mci'],
  namespaced: true,
  specFields: { ingressClassName: true, defaultBackend: true, tls: true, rules: true },
  statusFields: { loadBalancer: true, trafficBlockClusters: true, serviceLocations: true },
});
