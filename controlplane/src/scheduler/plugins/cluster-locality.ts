/** Favours clusters the binding already runs on, which keeps placements sticky. */
import type { ScorePlugin } from '../framework.ts';

export const clusterLocality: ScorePlugin = {
  name: 'ClusterLocality',
  score: (a, c) => (a.binding.assigned.has(c.name) ? 100 : 0),
};
