/**
 * Applying a Work that carries a fence timeout (`failover.karmada-failover.io/fence-after-seconds`):
 * through the self-fence, which records its objects first and refuses once they were fenced. The
 * member objects the fence deletes are found the way the execution controller deletes them: the
 * live object, and only when it belongs to that very Work.
 */
import { isNotFound, joinKey, splitKey } from '@kf/kube';
import {
  readFenceSetting,
  workConditionReasons,
  workConditionTypes,
  type ConditionUpdate,
  type Work,
} from '@kf/api';
import type { Source } from '@kf/runtime';
import type { ObjectRef } from '../../fence/fence-plan.ts';
import type { SelfFence } from '../../fence/self-fence.ts';
import type { MemberObjects } from '../../member/member-objects.ts';
import type { MemberRestMapper } from '../../member/rest-mapper.ts';
import { mayDelete, type MemberObject } from './manifest-plan.ts';

/**
 * A fence must outlast this many renew intervals: the heartbeat counts a renewal once per interval
 * (over a sound link), so a shorter fence would fire between two renewals of an agent that is in
 * touch. Over a slow link renewals are counted less often (docs/operations.md says how much).
 */
export const MIN_RENEWALS_PER_FENCE = 3;

export interface FenceWiring {
  readonly fence: SelfFence;
  readonly renewIntervalMs: number;
  /** Keys of Works the fence just fenced: the controller writes their Fenced condition. */
  readonly fenced: Source;
}

export type FencedApply =
  /** `armed`: the conditions that say whether the fence is armed, to write with Applied. */
  | { readonly kind: 'applied'; readonly errors: readonly string[]; readonly armed?: ConditionUpdate }
  /** Not yet: this process has not counted a renewal. */
  | { readonly kind: 'wait' }
  | { readonly kind: 'fenced'; readonly condition: ConditionUpdate }
  /** The fence cannot be honoured; the Work is not applied. */
  | { readonly kind: 'refused'; readonly message: string };

export interface FencedApplyInput {
  readonly key: string;
  readonly work: Work;
  /** The objects the Work's manifests become in the member. */
  readonly objects: () => Promise<readonly ObjectRef[]>;
  readonly apply: () => Promise<readonly string[]>;
  /** Writes FenceArmed=False on the Work (its fence timeout is gone). */
  readonly disarm: (condition: ConditionUpdate) => Promise<void>;
  readonly signal: AbortSignal;
  /** Why a Work with a fence timeout is refused when there is no fence (default: the heartbeat is off). */
  readonly noFence?: string;
}

const NO_HEARTBEAT =
  'a Work with a fence timeout needs the agent heartbeat (controller clusterStatus), which is off';

function isArmed(work: Work): boolean {
  return (
    work.status?.conditions?.some((c) => c.type === workConditionTypes.fenceArmed && c.status === 'True') ===
    true
  );
}

export function armedCondition(seconds: number): ConditionUpdate {
  return {
    type: workConditionTypes.fenceArmed,
    status: 'True',
    reason: workConditionReasons.fenceArmed,
    message: `The agent lists the copies in its fence record and deletes them itself after ${String(seconds)}s without a Lease renewal.`,
  };
}

function disarmedCondition(): ConditionUpdate {
  return {
    type: workConditionTypes.fenceArmed,
    status: 'False',
    reason: workConditionReasons.fenceNotArmed,
    message: 'The Work carries no fence timeout: the agent does not fence its copies.',
  };
}

/** Applies a Work without a fence timeout as is; one with a fence through the self-fence. */
export async function applyFenced(
  wiring: FenceWiring | undefined,
  input: FencedApplyInput,
): Promise<FencedApply> {
  const setting = readFenceSetting(input.work.metadata.annotations);
  if (setting.kind === 'off') {
    // Said before the record forgets the Work: the control plane must never see the fence armed
    // while the agent no longer keeps it.
    if (isArmed(input.work)) await input.disarm(disarmedCondition());
    await wiring?.fence.forget(input.key, input.signal);
    return { kind: 'applied', errors: await input.apply() };
  }
  if (setting.kind === 'invalid') return { kind: 'refused', message: setting.problem };
  if (wiring === undefined) return { kind: 'refused', message: input.noFence ?? NO_HEARTBEAT };
  const floorMs = MIN_RENEWALS_PER_FENCE * wiring.renewIntervalMs;
  if (setting.seconds * 1000 < floorMs) {
    return {
      kind: 'refused',
      message: `fence timeout ${String(setting.seconds)}s is shorter than ${String(MIN_RENEWALS_PER_FENCE)} Lease renew intervals (${String(floorMs / 1000)}s): the copies would be fenced between renewals`,
    };
  }
  let errors: readonly string[] = [];
  const entry = {
    work: input.key,
    uid: input.work.metadata.uid ?? '',
    fenceSeconds: setting.seconds,
    objects: await input.objects(),
  };
  const permit = await wiring.fence.withPermit(
    entry,
    async () => {
      errors = await input.apply();
    },
    input.signal,
  );
  if (permit.kind === 'apply') return { kind: 'applied', errors, armed: armedCondition(setting.seconds) };
  if (permit.kind === 'wait') return { kind: 'wait' };
  return { kind: 'fenced', condition: fencedCondition(setting.seconds, permit.fencedAt) };
}

export function fencedCondition(seconds: number, fencedAt: string | undefined): ConditionUpdate {
  return {
    type: workConditionTypes.fenced,
    status: 'True',
    reason: workConditionReasons.fenceTimeout,
    message: `The agent deleted the copies${fencedAt === undefined ? '' : ` at ${fencedAt}`}: it had not renewed its Lease for the fence timeout (${String(seconds)}s). They are not applied again; a new Work is needed to run the workload here.`,
  };
}

/** Deletes one fenced object: the live one, and only when it belongs to the Work `work`. */
export async function deleteFencedObject(
  member: { readonly objects: MemberObjects; readonly mapper: MemberRestMapper },
  target: { readonly ref: ObjectRef; readonly work: string },
  signal: AbortSignal,
): Promise<void> {
  const { ref, work } = target;
  const mapping = await member.mapper.resolve(ref.apiVersion, ref.kind);
  const { client } = member.objects.resource(mapping);
  const key = mapping.namespaced ? joinKey(ref.namespace, ref.name) : ref.name;
  const live: MemberObject | undefined = await client.find(key, { signal });
  const owner = splitKey(work);
  if (live === undefined || !mayDelete(live, { namespace: owner.namespace ?? '', name: owner.name })) return;
  try {
    await client.delete(key, { propagationPolicy: 'Background', signal });
  } catch (err: unknown) {
    if (!isNotFound(err)) throw err;
  }
}
