/** Every plugin the scheduler knows, in upstream's registration order (the order decides which reason a cluster reports). */
import type { Plugins } from '../framework.ts';
import { apiEnablement } from './api-enablement.ts';
import { clusterAffinityFilter, clusterAffinityScore } from './cluster-affinity.ts';
import { clusterEviction } from './cluster-eviction.ts';
import { clusterLocality } from './cluster-locality.ts';
import { evictionHistory } from './eviction-history.ts';
import { spreadConstraint } from './spread-constraint.ts';
import { taintToleration } from './taint-toleration.ts';

export const defaultPlugins: Plugins = {
  filters: [
    apiEnablement,
    taintToleration,
    clusterAffinityFilter,
    spreadConstraint,
    clusterEviction,
    evictionHistory,
  ],
  scorers: [clusterLocality, clusterAffinityScore],
};
