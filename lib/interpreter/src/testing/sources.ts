/** Script sources and customizations made up in tests. */
import type { CustomizationRules, ResourceInterpreterCustomization } from '@kf/api';
import { type InterpreterOperation, operationRules } from '../operations.ts';
import type { ScriptSource } from '../registry.ts';

export function scriptSource(
  operation: InterpreterOperation,
  script: string,
  customization = 'test',
): ScriptSource {
  return {
    operation,
    customization,
    resourceVersion: undefined,
    script,
    key: `${customization}/${operation}/${script}`,
  };
}

export function customization(
  name: string,
  target: { apiVersion: string; kind: string },
  scripts: Partial<Record<InterpreterOperation, string>>,
  resourceVersion?: string,
): ResourceInterpreterCustomization {
  const rules: Partial<Record<keyof CustomizationRules, { luaScript: string }>> = {};
  for (const [operation, luaScript] of Object.entries(scripts)) {
    rules[operationRules[operation as InterpreterOperation].field] = { luaScript };
  }
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: resourceVersion === undefined ? { name } : { name, resourceVersion },
    spec: { target, customizations: rules },
  };
}
