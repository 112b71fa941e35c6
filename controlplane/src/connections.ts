/**
 * How the control plane connects to its own API server. Every client, watch cache, event recorder
 * and elector of `run` is built with this transport (lint keeps it so): a flag here, not a switch
 * on the process, so that whatever builds the control plane's controllers (its process, a test)
 * gets the same connections.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  KubeTransport,
  ResourceClient,
  type KubeObject,
  type ResourceClientOptions,
  type ResourceDescriptor,
  type TransportOptions,
} from '@kf/kube';

/**
 * HTTP/1.1 only. The control plane sends many requests at once to an API server close by; under
 * that load Node's HTTP/2 client was seen, rarely, looping in its send path while its native
 * memory grew by gigabytes a second until the kernel killed the process. HTTP/1.1 placed bindings
 * as fast in the scale benchmark. Push members are reached as the agent reaches the control
 * plane, HTTP/2 offered: one multiplexed connection over a link that may be slow.
 */
export const CONTROL_PLANE_TRANSPORT: TransportOptions = { offerHttp2: false };

/** A client of the control plane's API server, over a connection pool of its own. */
export function controlPlaneClient<T extends KubeObject>(
  kubeConfig: KubeConfig,
  resource: ResourceDescriptor,
  options: Omit<ResourceClientOptions, 'transport'> = {},
): ResourceClient<T> {
  return new ResourceClient<T>(kubeConfig, resource, { ...options, transport: CONTROL_PLANE_TRANSPORT });
}

/** Plain access to the control plane's API server (for requests no typed client makes). */
export function controlPlaneTransport(kubeConfig: KubeConfig): KubeTransport {
  return new KubeTransport(kubeConfig, CONTROL_PLANE_TRANSPORT);
}
