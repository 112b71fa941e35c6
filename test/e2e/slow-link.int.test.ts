/**
 * Links from a member's agent that misbehave without breaking: the member itself healthy, the
 * faults on the agent's own proxies.
 *
 * A slow link to the control plane: latency added each way. A live member must stay Ready while
 * the link's round trip is up to half the grace period: each heartbeat renewal may wait until
 * the last one would lapse, not a fixed interval. The agent runs with the Lease duration equal to
 * the control plane's grace period (5 s, renewed every second), as at the defaults (40 s both).
 * - ⅛ of the grace each way (0.625 s), then ¼ (1.25 s: a round trip of half the grace), each for
 *   three grace periods: Ready never leaves True, and the Lease keeps being renewed.
 * - Still at ¼: an Unknown written over Ready (as the control plane writes after a silence) is
 *   answered by the agent with Ready=True over the slow link.
 *
 * Connections that go silent for good while new ones get through (a server behind a virtual IP
 * that vanished, a NAT or load-balancer entry lost): every call the agent makes on such a
 * connection hangs until its deadline, and without a new connection every later one would too.
 * - To the control plane: the Lease is renewed again within the Lease duration and a renew
 *   interval, and nothing moves.
 * - To the member's API server: Ready never leaves True (the failure threshold, 8 s here as 30 s
 *   is at the defaults, is longer than a health probe's 5 s wait) and nothing moves.
 *
 * The same faults on the control plane's link to a Push member (member2), whose health the
 * control plane probes itself (status every second; its failure threshold 8 s here, longer than a
 * probe's 5 s wait as the default 30 s is):
 * - A round trip of half a probe's wait (1.25 s each way) for the failure threshold, the taint's
 *   hold time and more: Ready never leaves True and nothing moves.
 * - Its open connections silenced for good: a probe left hanging ends at its wait, the next one
 *   connects afresh, and Ready never leaves True. It comes right after the slow link, when the
 *   PINGs' last round trip is still 2.5 s: their verdict on the silence (three 1 s intervals and
 *   two round trips) would come after the failure threshold, so only the probe's own deadline
 *   gets the next probe a new connection in time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseMicroTime } from '@kf/kube';
import {
  Observer,
  copiesSeen,
  everNoExecute,
  leftAfter,
  startFailoverFederation,
  type FailoverFederation,
  type Sample,
} from '@kf/testing';
import { placeOn } from './partition-cells.ts';
import { NAMESPACE, agentMetric, until } from './support.ts';

const MEMBER = 'member1';
/** Joined in Push mode: the control plane reaches its API server through its own proxy. */
const PUSH_MEMBER = 'member2';
/** The control plane's failure threshold for Push members here, and its health probe's wait. */
const PUSH_FAILURE_THRESHOLD_MS = 8_000;
const PROBE_WAIT_MS = 5_000;
const RENEW_FAILURES = 'karmada_failover_agent_lease_renew_failures_total';

let fed: FailoverFederation;

beforeAll(async () => {
  fed = await startFailoverFederation({
    members: 2,
    nodes: 1,
    pushMembers: [PUSH_MEMBER],
    controlPlaneFlags: [`--cluster-failure-threshold=${String(PUSH_FAILURE_THRESHOLD_MS / 1000)}s`],
    // The Lease lasts the control plane's grace period (5 s) and is renewed every second.
    agentFlags: [
      '--cluster-lease-duration=5s',
      '--cluster-lease-renew-interval-fraction=0.2',
      // Longer than a health probe's wait (5 s), as the default (30 s) is.
      '--cluster-failure-threshold=8s',
    ],
  });
});

afterAll(async () => {
  await (fed as FailoverFederation | undefined)?.destroy();
});

interface Window {
  /** Every Ready status seen other than True, with when. */
  readonly notTrue: readonly { readonly atMs: number; readonly status: string | undefined }[];
  /** Distinct Lease renewal times seen during the window. */
  readonly renewals: number;
  readonly renewFailures: number;
}

/** Watches Ready (every 100 ms, over the control plane's own fast link) and the Lease for `ms`. */
async function watchFor(ms: number): Promise<Window> {
  const failuresBefore = await agentMetric(fed, MEMBER, RENEW_FAILURES);
  const notTrue: { atMs: number; status: string | undefined }[] = [];
  const renewTimes = new Set<number>();
  const endAtMs = Date.now() + ms;
  while (Date.now() < endAtMs) {
    const [status, lease] = await Promise.all([
      fed.readyStatus(MEMBER),
      fed.leases.get(`karmada-cluster/${MEMBER}`),
    ]);
    if (status !== 'True') notTrue.push({ atMs: Date.now(), status });
    const renewedAtMs = parseMicroTime(lease.spec?.renewTime ?? '');
    if (renewedAtMs !== undefined) renewTimes.add(renewedAtMs);
    await new Promise((r) => setTimeout(r, 100));
  }
  const renewFailures = (await agentMetric(fed, MEMBER, RENEW_FAILURES)) - failuresBefore;
  // The first time seen was renewed before the window.
  return { notTrue, renewals: renewTimes.size - 1, renewFailures };
}

describe('a slow link from the agent to the control plane', () => {
  const graceMs = (): number => fed.timing.monitorGraceSeconds * 1000;

  it.each([
    ['⅛', 8],
    ['¼', 4],
  ] as const)('keeps a live member Ready with %s of the grace period added each way', async (_name, part) => {
    const delayMs = graceMs() / part;
    const roundTripMs = 2 * delayMs;
    fed.links.agentToControlPlane(MEMBER).delay(delayMs);
    const seen = await watchFor(3 * graceMs());
    process.stdout.write(
      `slow link, ${String(delayMs)} ms each way: ${String(seen.renewals)} renewals landed, ` +
        `${String(seen.renewFailures)} failed, Ready not True ${String(seen.notTrue.length)} times\n`,
    );
    expect(seen.notTrue).toEqual([]);
    // One renewal per round trip + one interval (1 s, +4 %), less one for where the window cut them.
    const everyMs = roundTripMs + 1_040;
    expect(seen.renewals).toBeGreaterThanOrEqual(Math.floor((3 * graceMs()) / everyMs) - 1);
  });

  it('writes Ready back over an Unknown across a round trip of half the grace period', async () => {
    // The link is still delayed by ¼ of the grace each way (the test before).
    expect(fed.links.agentToControlPlane(MEMBER).mode).toBe('delay');
    const c = await fed.clusters.get(MEMBER);
    await fed.clusters.replaceStatus({
      ...c,
      status: {
        ...c.status,
        conditions: (c.status?.conditions ?? []).map((x) =>
          x.type === 'Ready'
            ? { ...x, status: 'Unknown' as const, reason: 'ClusterStatusUnknown', message: 'test' }
            : x,
        ),
      },
    });
    const writtenAtMs = Date.now();
    const backAtMs = await until(
      `${MEMBER} Ready=True again`,
      async () => (await fed.readyStatus(MEMBER)) === 'True',
      30_000,
      100,
    );
    process.stdout.write(
      `slow link: Ready=True again ${String(backAtMs - writtenAtMs)} ms after an Unknown\n`,
    );
    // The watch brings the Unknown (half a round trip), the write goes back (a round trip), and a
    // status period may pass before the sync: well within two grace periods.
    expect(backAtMs - writtenAtMs).toBeLessThan(2 * graceMs());
  });
});

/** A member and the workload placed on it, whose fate a fault must leave alone. */
interface Watched {
  readonly member: string;
  readonly deployment: string;
  readonly uid: string;
}

/** Samples `on` from the fault on for `forMs` (until a taint from it would have landed and been seen). */
async function observe(
  on: Watched,
  fault: () => void,
  forMs: number,
): Promise<{ atMs: number; samples: readonly Sample[] }> {
  const observer = new Observer(fed, { member: on.member, namespace: NAMESPACE, deployment: on.deployment });
  observer.start();
  const atMs = Date.now();
  fault();
  await sleep(forMs);
  return { atMs, samples: await observer.stop() };
}

/** The samples whose Ready was read and was not True, told on stdout as `what`. */
function readyNotTrue(
  samples: readonly Sample[],
  what: string,
): { atMs: number; ready: string | undefined }[] {
  const notTrue = samples.filter((x) => x.ready !== undefined && x.ready !== 'True');
  process.stdout.write(
    `${what}: Ready not True in ${String(notTrue.length)} of ${String(samples.length)} samples\n`,
  );
  return notTrue.map((x) => ({ atMs: x.atMs, ready: x.ready }));
}

function nothingMoved(samples: readonly Sample[], on: Watched): void {
  expect(everNoExecute(samples)).toBe(false);
  expect(leftAfter(samples, on.member, 0)).toEqual([]);
  expect(copiesSeen(samples)).toEqual([on.uid]);
}

describe('connections of the agent that go silent for good while new ones get through', () => {
  const LEASE_MS = 5_000;
  const RENEW_INTERVAL_MS = 1_000;
  let on: Watched;

  beforeAll(async () => {
    const links = fed.links;
    links.agentToControlPlane(MEMBER).restore();
    await until(`${MEMBER} Ready=True`, async () => (await fed.readyStatus(MEMBER)) === 'True', 30_000, 100);
    const deployment = 'web-silent';
    on = { member: MEMBER, deployment, uid: await placeOn(fed, deployment, { member: MEMBER }) };
  });

  it('to the control plane: the Lease is renewed again within its duration and an interval, and nothing moves', async () => {
    const holdMs = fed.timing.taintHoldSeconds * 1000;
    const { atMs, samples } = await observe(
      on,
      () => {
        fed.links.agentToControlPlane(MEMBER).dropOpen();
      },
      LEASE_MS + RENEW_INTERVAL_MS + holdMs + 3_000,
    );
    // The first renewal sent after the fault (renewTime is when the agent sent it).
    const renewedAtMs = Math.min(
      ...samples.map((x) => x.renewedAtMs ?? Number.POSITIVE_INFINITY).filter((at) => at >= atMs),
    );
    const notTrue = samples.filter((x) => x.ready !== 'True').length;
    process.stdout.write(
      `silent connections to the control plane: Lease renewed again +${String(renewedAtMs - atMs)} ms, ` +
        `Ready not True in ${String(notTrue)} of ${String(samples.length)} samples\n`,
    );
    // The call hanging on the silent connection runs until the last renewal would lapse (up to
    // the Lease duration after it); the next one, a quarter interval later, connects afresh.
    expect(renewedAtMs - atMs).toBeLessThanOrEqual(LEASE_MS + RENEW_INTERVAL_MS);
    nothingMoved(samples, on);
    expect(await fed.readyStatus(MEMBER)).toBe('True');
  });

  it("to the member's API server: Ready never leaves True, and nothing moves", async () => {
    const holdMs = fed.timing.taintHoldSeconds * 1000;
    const failureMs = 8_000;
    const { samples } = await observe(
      on,
      () => {
        fed.links.agentToMember(MEMBER).dropOpen();
      },
      failureMs + holdMs + 3_000,
    );
    // A probe left hanging ends at its 5 s wait, within the failure threshold; the next one
    // connects afresh and is answered.
    expect(readyNotTrue(samples, 'silent connections to the member')).toEqual([]);
    nothingMoved(samples, on);
  });
});

describe('a slow or silent link from the control plane to a Push member', () => {
  let on: Watched;

  beforeAll(async () => {
    await until(
      `${PUSH_MEMBER} Ready=True`,
      async () => (await fed.readyStatus(PUSH_MEMBER)) === 'True',
      30_000,
      100,
    );
    const deployment = 'web-push';
    on = { member: PUSH_MEMBER, deployment, uid: await placeOn(fed, deployment, { member: PUSH_MEMBER }) };
  });

  afterEach(() => {
    fed.links.controlPlaneToMember(PUSH_MEMBER).restore();
  });

  it("keeps the member Ready with a round trip of half a health probe's wait, and moves nothing", async () => {
    const holdMs = fed.timing.taintHoldSeconds * 1000;
    const { samples } = await observe(
      on,
      () => {
        fed.links.controlPlaneToMember(PUSH_MEMBER).delay(PROBE_WAIT_MS / 4);
      },
      PUSH_FAILURE_THRESHOLD_MS + holdMs + 3_000,
    );
    const what = `slow link to a Push member, ${String(PROBE_WAIT_MS / 4)} ms each way`;
    expect(readyNotTrue(samples, what)).toEqual([]);
    nothingMoved(samples, on);
  });

  it('gives up connections gone silent for good: Ready never leaves True, and nothing moves', async () => {
    const holdMs = fed.timing.taintHoldSeconds * 1000;
    const { samples } = await observe(
      on,
      () => {
        fed.links.controlPlaneToMember(PUSH_MEMBER).dropOpen();
      },
      PUSH_FAILURE_THRESHOLD_MS + holdMs + 3_000,
    );
    expect(readyNotTrue(samples, 'silent connections to a Push member')).toEqual([]);
    nothingMoved(samples, on);
  });
});
