/**
 * The partition matrix of the agent's side, side by side to keep the suite short (it is mostly
 * waiting): the agent link of ten members cut or blackholed (partition-matrix-agent-link.ts), and
 * agents whose clock is off or whose link is slow (partition-matrix-clocks.ts). The control plane's
 * own faults are in partitions-control-plane.int.test.ts.
 *
 * Both federations are up before the first cell plays: starting an API server costs seconds of
 * CPU, and cells that measure how soon a member is Ready again must not share two cores with API
 * servers starting. The two sets of cells then play one after the other.
 */
import { afterAll, beforeAll } from 'vitest';
import {
  defineAgentLinkTests,
  runAgentLinkCells,
  startAgentLinkFederation,
  stopAgentLinkCells,
} from './partition-matrix-agent-link.ts';
import {
  defineClockTests,
  runClockCells,
  startClockFederation,
  stopClockCells,
} from './partition-matrix-clocks.ts';

beforeAll(async () => {
  await Promise.all([startAgentLinkFederation(), startClockFederation()]);
  // The clock and latency cells first, alone (a slow link's cells ask the most of a busy machine:
  // the test's own proxies add the latency), and their federation gone before the link cells.
  await runClockCells();
  await stopClockCells();
  await runAgentLinkCells();
}, 900_000);

afterAll(async () => {
  await Promise.allSettled([stopAgentLinkCells(), stopClockCells()]);
});

defineAgentLinkTests();
defineClockTests();
