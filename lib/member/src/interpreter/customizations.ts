/**
 * The ResourceInterpreterCustomizations of the control plane, as the agent follows them: one
 * watch cache of them feeding one interpreter that runs their scripts (the health, status and
 * retained fields of member objects).
 *
 * The interpreter is made lazily, when the first customization appears: most members never see
 * one, and the agent's memory is kept for its caches. Until then every kind is judged by the
 * built-in rules, as it is without scripts.
 *
 * Until the first list is in (and the interpreter made, when there are customizations),
 * controllers that judge or apply member objects wait (`source()`): a Retain script not yet known
 * would let an apply overwrite what the member keeps, a health script not yet known would report
 * the built-in verdict for a moment.
 */
import {
  InterpreterFeed,
  type CustomizationCache,
  type FedInterpreter,
  type ResourceInterpreter,
} from '@kf/interpreter';
import type { Logger } from '@kf/runtime';

/** What the controllers ask the interpreter; each answer is undefined when no script covers the kind. */
export type MemberInterpreter = Pick<ResourceInterpreter, 'interpretHealth' | 'reflectStatus' | 'retain'>;

/** The interpreter as the feed drives it. */
export type FollowingInterpreter = MemberInterpreter & FedInterpreter;

export class InterpreterCustomizations extends InterpreterFeed<FollowingInterpreter> {
  constructor(cache: CustomizationCache, create: () => Promise<FollowingInterpreter>, log: Logger) {
    super(cache, { create, lazy: true, log });
  }
}
