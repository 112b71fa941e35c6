/**
 * The CustomResourceDefinitions of every kind in this package, as objects; deploy/crds holds
 * them rendered (see write-crds-main.ts).
 */
import { clusterResourceBindingCrd, resourceBindingCrd } from './binding.ts';
import { clusterCrd } from './cluster.ts';
import {
  resourceInterpreterCustomizationCrd,
  resourceInterpreterWebhookConfigurationCrd,
} from './interpreter.ts';
import type { CustomResourceDefinition } from './definition.ts';
import { multiClusterIngressCrd } from './networking.ts';
import { clusterPropagationPolicyCrd, propagationPolicyCrd } from './policy.ts';
import { remedyCrd } from './remedy.ts';
import { clusterTaintPolicyCrd } from './taint-policy.ts';
import { workCrd } from './work.ts';
import { workloadRebalancerCrd } from './workload-rebalancer.ts';

export type { CustomResourceDefinition, PrinterColumn } from './definition.ts';
export type { Schema, ValidationRule } from './schema.ts';
import { renderYaml } from './yaml.ts';

export { renderYaml };

export function customResourceDefinitions(): readonly CustomResourceDefinition[] {
  return [
    clusterCrd(),
    workCrd(),
    resourceBindingCrd(),
    clusterResourceBindingCrd(),
    propagationPolicyCrd(),
    clusterPropagationPolicyCrd(),
    clusterTaintPolicyCrd(),
    remedyCrd(),
    multiClusterIngressCrd(),
    workloadRebalancerCrd(),
    resourceInterpreterCustomizationCrd(),
    resourceInterpreterWebhookConfigurationCrd(),
  ];
}

/** `<group>_<plural>.yaml`, the name of the file holding a CRD in deploy/crds. */
export function crdFileName(crd: CustomResourceDefinition): string {
  return `${crd.spec.group}_${crd.spec.names.plural}.yaml`;
}

/** The file content for a CRD: a header line, then the YAML document. */
export function renderCrdFile(crd: CustomResourceDefinition): string {
  return `# Generated from lib/api/src/crd; edit there and run lib/api/src/crd/write-crds-main.ts.\n${renderYaml(crd)}`;
}
