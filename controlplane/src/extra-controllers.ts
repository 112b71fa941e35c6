/**
 * The single place where controller sets built outside `src/controllers/` join the process. Each
 * entry gets the shared wiring and returns its controllers (leader-bound; their names take part
 * in `--controllers` like the built-in ones) and the runnables they need on every replica.
 */
import type { KubeObject, ResourceDescriptor } from '@kf/kube';
import { applicationFailoverController } from './controllers/application-failover/controller.ts';
import { createWorkloadDeps, workloadControllers } from './workload/index.ts';
import { pushClusters } from './push/index.ts';
import type { ControllerSet } from './wiring.ts';

/**
 * The workload pipeline (resource-detector, scheduler, binding, binding-status), with the
 * resource interpreter fed from the one ResourceInterpreterCustomization cache, and
 * application-failover, which shares its binding caches.
 */
const workload: ControllerSet = (w) => {
  const gates = w.config.featureGates;
  const { deps, runnables } = createWorkloadDeps(w.kubeConfig, w.log, {
    clock: w.clock,
    // One cache per kind and one Event recorder in the process: Clusters and bindings are watched
    // once, and the pipeline's Events are flushed with everyone else's when the process stops.
    cacheOf: <T extends KubeObject>(resource: ResourceDescriptor) => w.caches.cache<T>(resource),
    events: w.events,
    ...(w.caches.metrics === undefined ? {} : { watchMetrics: w.caches.metrics }),
    statefulFailoverInjection: gates.StatefulFailoverInjection,
    propagateDeps: gates.PropagateDeps,
    schedulerOptions: { multiplePodTemplates: gates.MultiplePodTemplatesScheduling },
  });
  const applicationFailover = applicationFailoverController({
    bindings: deps.bindings,
    events: deps.events,
    gates: {
      gracefulEviction: gates.GracefulEviction,
      statefulFailoverInjection: gates.StatefulFailoverInjection,
    },
  });
  return {
    controllers: [...workloadControllers(deps), applicationFailover],
    runnables,
    unsynced: () => [
      ...deps.templates.unsynced(),
      ...(deps.interpreter.isReady() ? [] : ['resource-interpreter']),
    ],
    firstListsEnded: () => deps.templates.firstListsEnded(),
  };
};

export const EXTRA_CONTROLLER_SETS: readonly ControllerSet[] = [workload, pushClusters];
