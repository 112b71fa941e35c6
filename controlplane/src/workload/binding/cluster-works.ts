/**
 * The Work each target cluster of a binding should have, with the kind's ReviseReplica script
 * applied first when a ResourceInterpreterCustomization gives it one: upstream revises the
 * template of every workload binding (replicas or replica requirements set) to the cluster's
 * assigned replicas, whatever the placement's replica scheduling, before anything else is done
 * to it. A cluster whose script fails gets no Work write this time (its Work, if any, keeps what
 * it carries); the others are written as usual.
 */
import type { ResourceBinding, TargetCluster, Work } from '@kf/api';
import type { ResourceInterpreter } from '@kf/interpreter';
import { labelsToInject } from '../../state-preservation/preserved-state.ts';
import { runScript, type ScriptOutcome } from '../interpreter/script-condition.ts';
import { asKubeObject, type ResourceTemplate } from '../template.ts';
import { desiredWork, isWorkloadBinding, targetClusters, withWorkloadLabels } from './work-plan.ts';

/** The template as cluster `c` gets it: revised by the kind's ReviseReplica script, if any. */
export function revisedTemplate(
  b: ResourceBinding,
  t: ResourceTemplate,
  c: TargetCluster,
  interpreter: ResourceInterpreter | undefined,
): ScriptOutcome<ResourceTemplate> {
  if (!isWorkloadBinding(b)) return { kind: 'none' };
  return runScript(
    interpreter,
    (i) => i.reviseReplica(asKubeObject(t), c.replicas ?? 0) as ResourceTemplate | undefined,
  );
}

export interface ClusterWorks {
  /** The Work of every cluster whose template could be made. */
  readonly works: readonly { readonly cluster: string; readonly work: Work }[];
  /** The ReviseReplica outcome over all clusters: failed when any cluster's script failed. */
  readonly revise: ScriptOutcome<unknown>;
}

export interface ClusterWorksInput {
  readonly key: string;
  readonly b: ResourceBinding;
  readonly template: ResourceTemplate;
  /** Gate StatefulFailoverInjection. */
  readonly statefulFailoverInjection: boolean;
}

export function clusterWorks(
  input: ClusterWorksInput,
  interpreter: ResourceInterpreter | undefined,
): ClusterWorks {
  const { key, b, template } = input;
  const targets = targetClusters(b);
  const names = targets.map((c) => c.name);
  const works: { cluster: string; work: Work }[] = [];
  const failed: string[] = [];
  let revised = false;
  for (const c of targets) {
    const outcome = revisedTemplate(b, template, c, interpreter);
    if (outcome.kind === 'failed') {
      failed.push(`cluster ${c.name}: ${outcome.message}`);
      continue;
    }
    revised ||= outcome.kind === 'succeeded';
    const t = outcome.kind === 'succeeded' ? outcome.value : template;
    const inject = input.statefulFailoverInjection ? labelsToInject(b.spec, names, c.name) : undefined;
    works.push({ cluster: c.name, work: withWorkloadLabels(desiredWork(key, b, t, c), inject) });
  }
  const revise: ScriptOutcome<unknown> =
    failed.length > 0
      ? { kind: 'failed', message: failed.join('; ') }
      : revised
        ? { kind: 'succeeded', value: undefined }
        : { kind: 'none' };
  return { works, revise };
}
