/** Customizations and templates the unit tests of the scripted steps share. */
import type { ResourceInterpreterCustomization } from '@kf/api';
import { createResourceInterpreter, type ResourceInterpreter } from '@kf/interpreter';
import { customization } from '@kf/interpreter/testing';
import type { ResourceTemplate } from '../template.ts';

export const CLONESET = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' };

/** Scripts in the style of Karmada's CloneSet customization. */
export const cloneSetScripts = customization('cloneset', CLONESET, {
  InterpretReplica: `local kube = require("kube")
function GetReplicas(obj)
  return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
end`,
  ReviseReplica: `function ReviseReplica(obj, desiredReplica)
  obj.spec.replicas = desiredReplica
  return obj
end`,
  AggregateStatus: `function AggregateStatus(desiredObj, statusItems)
  local replicas = 0
  if statusItems ~= nil then
    for i = 1, #statusItems do
      if statusItems[i].status ~= nil and statusItems[i].status.replicas ~= nil then
        replicas = replicas + statusItems[i].status.replicas
      end
    end
  end
  desiredObj.status = { replicas = replicas, members = statusItems == nil and 0 or #statusItems }
  return desiredObj
end`,
});

/** Every operation of `target` failing with a runtime error. */
export function failingScripts(target = CLONESET, name = 'broken'): ResourceInterpreterCustomization {
  const fail = (fn: string, args: string): string => `function ${fn}(${args})\n  error("no luck")\nend`;
  return customization(name, target, {
    InterpretReplica: fail('GetReplicas', 'obj'),
    ReviseReplica: fail('ReviseReplica', 'obj, n'),
    AggregateStatus: fail('AggregateStatus', 'obj, items'),
  });
}

export function interpreterWith(
  ...customizations: ResourceInterpreterCustomization[]
): Promise<ResourceInterpreter> {
  return createResourceInterpreter(customizations);
}

export function cloneSet(replicas: number): ResourceTemplate {
  return {
    ...CLONESET,
    metadata: { name: 'shop', namespace: 'default', uid: 'cs-1', generation: 2 },
    spec: {
      replicas,
      template: {
        spec: { containers: [{ name: 'app', resources: { requests: { cpu: '250m', memory: '1Gi' } } }] },
      },
    },
  };
}
