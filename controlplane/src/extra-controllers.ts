/**
 * The single place where controller sets built outside `src/controllers/` join the process. Each
 * entry gets the shared wiring and returns its controllers (leader-bound; their names take part
 * in `--controllers` like the built-in ones) and the runnables they need on every replica.
 */
import { createWorkloadDeps, workloadControllers } from './workload/index.ts';
import type { ControllerSet } from './wiring.ts';

/** The workload pipeline: resource-detector, scheduler, binding, binding-status. */
const workload: ControllerSet = (w) => {
  const { deps, runnables } = createWorkloadDeps(w.kubeConfig, w.log, { clock: w.clock });
  return { controllers: workloadControllers(deps), runnables };
};

export const EXTRA_CONTROLLER_SETS: readonly ControllerSet[] = [workload];
