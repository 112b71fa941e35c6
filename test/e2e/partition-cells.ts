/**
 * The cells of the partition matrix: one fault of one length against one member (or the whole
 * control plane), with what a user is promised about it checked on what @kf/testing's partition
 * Observer sampled every 250 ms from the control plane and the member:
 * - a cluster whose Lease is renewed again after the fault never receives a NoExecute taint after
 *   that renewal, and no binding leaves it then;
 * - Ready is True again within one status period + 1 s of the link coming back;
 * - a fault longer than grace + hold does fail over, and the copy comes back cleanly after it.
 */
import { Observer, duplicatedOnto, type FailoverFederation } from '@kf/testing';
import {
  NAMESPACE,
  demoDeployment,
  memberCopy,
  placement,
  policyFor,
  propagate,
  until,
  worksOf,
} from './support.ts';

/** The faults of a link matrix: cut (RST) or blackholed (silence), for each of these lengths. */
export const LINK_FAULT_SECONDS = [1, 5, 15, 30, 60] as const;
export const LINK_FAULT_MODES = ['cut', 'blackhole'] as const;

export interface LinkCell {
  readonly mode: (typeof LINK_FAULT_MODES)[number];
  readonly seconds: number;
  readonly member: string;
}

/** One cell per mode and length, each on a member of its own: member1 … member10. */
export const LINK_CELLS: readonly LinkCell[] = LINK_FAULT_MODES.flatMap((mode, m) =>
  LINK_FAULT_SECONDS.map((seconds, i) => ({
    mode,
    seconds,
    member: `member${String(m * LINK_FAULT_SECONDS.length + i + 1)}`,
  })),
);

/**
 * A Deployment of one replica Duplicated onto `member` (and `spare`, when given: somewhere for it
 * to stay healthy while `member` is failed over), placed and with its copy on `member`.
 */
export async function placeOn(
  fed: FailoverFederation,
  deployment: string,
  clusters: { readonly member: string; readonly spare?: string },
): Promise<string> {
  const { member, spare } = clusters;
  await propagate(
    fed,
    policyFor(deployment, duplicatedOnto(spare === undefined ? [member] : [member, spare])),
    demoDeployment(deployment, 1),
  );
  await until(
    `${deployment} placed on ${member}`,
    async () => (await placement(fed, deployment))?.[member] === 1,
  );
  let uid = '';
  await until(`${deployment} copy on ${member}`, async () => {
    uid = (await memberCopy(fed, member, deployment))?.uid ?? '';
    return uid !== '';
  });
  return uid;
}

/**
 * What the tests assert of Ready=True after a fault: well before anything could be tainted
 * NoExecute (grace + hold). The 2 s target (READY_TARGET_MS) is a speed figure, printed for every
 * cell and measured by the partition soak benchmark, not a timed assertion.
 */
export const READY_BOUND_MS = 5_000;

/**
 * The copy came back cleanly: `member` untainted and placed again, its Work applied and not being
 * deleted, one Work per placed cluster, the Deployment on the member with its replica.
 */
export async function cameBackCleanly(
  fed: FailoverFederation,
  member: string,
  deployment: string,
): Promise<void> {
  await until(
    `${deployment} back on ${member}`,
    async () => {
      const [p, works, copy, cluster] = await Promise.all([
        placement(fed, deployment),
        worksOf(fed, deployment),
        memberCopy(fed, member, deployment),
        fed.clusters.get(member),
      ]);
      const state = {
        placement: p,
        works,
        copyReplicas: copy?.replicas,
        taints: (cluster.spec.taints ?? []).map((t) => `${t.key}:${t.effect}`),
      };
      const clean =
        p?.[member] === 1 &&
        Object.keys(works).length === Object.keys(p).length &&
        works[member]?.deleting === false &&
        copy?.replicas === 1 &&
        state.taints.length === 0;
      // Thrown, so that a timeout names the last state seen.
      if (!clean) throw new Error(JSON.stringify(state));
      return true;
    },
    120_000,
  );
}

/** An Observer of `deployment` (in the e2e namespace) and `member`. */
export function observe(fed: FailoverFederation, member: string, deployment: string): Observer {
  return new Observer(fed, { member, namespace: NAMESPACE, deployment });
}
