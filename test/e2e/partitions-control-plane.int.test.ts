/**
 * The partition matrix of the control plane's side (partition-matrix-control-plane.ts): its link,
 * its API server and its whole self broken for 1 to 60 s, each kind on a federation of its own,
 * plus two minutes of the whole control plane down. Every federation is up before the first fault.
 */
import { afterAll, beforeAll } from 'vitest';
import {
  defineControlPlaneTests,
  runControlPlaneCells,
  startControlPlaneFederations,
  stopControlPlaneCells,
} from './partition-matrix-control-plane.ts';

beforeAll(async () => {
  await startControlPlaneFederations();
  await runControlPlaneCells();
}, 900_000);

afterAll(async () => {
  await stopControlPlaneCells();
});

defineControlPlaneTests();
