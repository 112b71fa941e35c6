/** The member's (and the control plane's) Namespaces, as the typed client reads and writes them. */
import type { KubeObject } from '@kf/kube';

export interface Namespace extends KubeObject {
  readonly metadata?: KubeObject['metadata'] & { readonly labels?: Readonly<Record<string, string>> };
}

export const NAMESPACE_RESOURCE = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  namespaced: false,
  kind: 'Namespace',
};
