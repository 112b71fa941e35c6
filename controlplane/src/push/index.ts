/**
 * The Push clusters' controller set: the three supervisors (`cluster-status`, `execution`,
 * `work-status`) over one registry of per-cluster hosts, with the member side's metric families
 * under `karmada_failover_push_` (upstream's cluster families keep their names).
 */
import { resourceInterpreterCustomizationKind, type ResourceInterpreterCustomization } from '@kf/api';
import { createResourceInterpreter } from '@kf/interpreter';
import { InterpreterCustomizations, SECRET_RESOURCE, memberMetricFamilies, type Secret } from '@kf/member';
import { DEFAULT_METRIC_PREFIX, whenAborted } from '@kf/runtime';
import { isControllerEnabled } from '../cli.ts';
import type { ControllerSet } from '../wiring.ts';
import { pushSupervisor, sharedSecretReads } from './push-controllers.ts';
import { memberParts } from './member-parts.ts';
import { PUSH_PARTS, PushHosts } from './push-hosts.ts';
import { controlPlaneClient } from '../connections.ts';

export const pushClusters: ControllerSet = (w) => {
  const enabled = (name: string) => isControllerEnabled(w.config.controllers, name);
  const clusters = w.caches.clusters();
  // Execution and work-status judge and apply member objects with the customizations' scripts.
  const customizations =
    enabled('execution') || enabled('work-status')
      ? new InterpreterCustomizations(
          w.caches.cache<ResourceInterpreterCustomization>(resourceInterpreterCustomizationKind),
          () => createResourceInterpreter(),
          w.log.child({ component: 'push-resource-interpreter' }),
        )
      : undefined;
  const log = w.log.child({ component: 'push' });
  const hosts = new PushHosts(
    memberParts({
      karmada: w.kubeConfig,
      clusters,
      config: w.config,
      log,
      clock: w.clock,
      random: w.random,
      metrics: memberMetricFamilies(w.registry, `${DEFAULT_METRIC_PREFIX}push_`),
      runner: w.runner,
      events: w.events,
      ...(w.caches.metrics === undefined ? {} : { watchMetrics: w.caches.metrics }),
      ...(customizations === undefined ? {} : { customizations }),
    }),
    log,
  );
  const problems = new Map<string, string>();
  const secrets = sharedSecretReads(controlPlaneClient<Secret>(w.kubeConfig, SECRET_RESOURCE), () =>
    w.clock.monotonic(),
  );
  return {
    runnables:
      customizations === undefined
        ? []
        : [
            {
              name: 'push-interpreter',
              needLeaderElection: false,
              start: async (signal) => {
                await whenAborted(signal);
                customizations.close();
              },
            },
          ],
    controllers: PUSH_PARTS.map((part) =>
      pushSupervisor(part, { secrets, clusters, hosts, events: w.events, problems }),
    ),
  };
};
