/** Every kind this package describes, e.g. to install or check their CRDs in one go. */
import { clusterResourceBindingKind, resourceBindingKind } from './binding.ts';
import { clusterKind } from './cluster.ts';
import {
  resourceInterpreterCustomizationKind,
  resourceInterpreterWebhookConfigurationKind,
} from './interpreter.ts';
import type { KindDescriptor } from './kind.ts';
import { multiClusterIngressKind } from './networking.ts';
import { clusterPropagationPolicyKind, propagationPolicyKind } from './policy.ts';
import { remedyKind } from './remedy.ts';
import { clusterTaintPolicyKind } from './taint-policy.ts';
import { workKind } from './work.ts';
import { workloadRebalancerKind } from './workload-rebalancer.ts';

export const allKinds: readonly KindDescriptor[] = [
  clusterKind,
  workKind,
  resourceBindingKind,
  clusterResourceBindingKind,
  propagationPolicyKind,
  clusterPropagationPolicyKind,
  clusterTaintPolicyKind,
  remedyKind,
  multiClusterIngressKind,
  workloadRebalancerKind,
  resourceInterpreterCustomizationKind,
  resourceInterpreterWebhookConfigurationKind,
];
