/**
 * The partition matrix, all of it side by side to keep the suite short (it is mostly waiting):
 * the agent link of ten members cut or blackholed (partition-matrix-agent-link.ts), the control
 * plane's link, API server and whole self broken on federations of their own, plus two minutes of
 * the whole control plane down (partition-matrix-control-plane.ts), and agents whose clock is off
 * or whose link is slow (partition-matrix-clocks.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import {
  defineAgentLinkTests,
  runAgentLinkCells,
  stopAgentLinkCells,
} from './partition-matrix-agent-link.ts';
import { defineClockTests, runClockCells, stopClockCells } from './partition-matrix-clocks.ts';
import {
  defineControlPlaneTests,
  runControlPlaneCells,
  stopControlPlaneCells,
} from './partition-matrix-control-plane.ts';

beforeAll(async () => {
  await Promise.all([runAgentLinkCells(), runControlPlaneCells(), runClockCells()]);
}, 900_000);

afterAll(async () => {
  await Promise.allSettled([stopAgentLinkCells(), stopControlPlaneCells(), stopClockCells()]);
});

defineAgentLinkTests();
defineControlPlaneTests();
defineClockTests();
