/**
 * The partition matrix on the control plane's link to ten Push members, then a restart of the
 * control plane with all of them (partition-matrix-push-link.ts). Its bounds are in seconds of
 * hold time, not in the agent cells' fractions of a grace period, so it runs beside other files.
 */
import { afterAll, beforeAll } from 'vitest';
import { definePushLinkTests, runPushLinkCells, stopPushLinkCells } from './partition-matrix-push-link.ts';

beforeAll(async () => {
  await runPushLinkCells();
}, 900_000);

afterAll(async () => {
  await stopPushLinkCells();
});

definePushLinkTests();
