/**
 * The partition matrix, both halves side by side to keep the suite short (they are mostly waiting):
 * the agent link of ten members cut or blackholed (partition-matrix-agent-link.ts) and the control
 * plane's link, API server and whole self broken on federations of their own, plus two minutes of
 * the whole control plane down (partition-matrix-control-plane.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import {
  defineAgentLinkTests,
  runAgentLinkCells,
  stopAgentLinkCells,
} from './partition-matrix-agent-link.ts';
import {
  defineControlPlaneTests,
  runControlPlaneCells,
  stopControlPlaneCells,
} from './partition-matrix-control-plane.ts';

beforeAll(async () => {
  await Promise.all([runAgentLinkCells(), runControlPlaneCells()]);
}, 900_000);

afterAll(async () => {
  await Promise.allSettled([stopAgentLinkCells(), stopControlPlaneCells()]);
});

defineAgentLinkTests();
defineControlPlaneTests();
