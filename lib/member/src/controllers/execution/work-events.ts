import type { Work } from '@kf/api';

/** Reasons of the Events upstream's execution controller records on a Work. */
export const workEventReasons = {
  dispatching: 'WorkDispatching',
  syncSucceed: 'SyncSucceed',
  syncFailed: 'SyncFailed',
  /** Not upstream's: a propagated namespace left in the member because others' objects are in it. */
  namespaceKept: 'NamespaceKept',
} as const;

export interface WorkEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** The Work-level Event after applying its manifests, worded as upstream's. */
export function syncEvent(work: Work, clusterName: string, errors: readonly string[]): WorkEvent {
  const ref = `work(${work.metadata.namespace ?? ''}/${work.metadata.name ?? ''})`;
  return errors.length === 0
    ? {
        type: 'Normal',
        reason: workEventReasons.syncSucceed,
        message: `Sync ${ref} to cluster(${clusterName}) successful.`,
      }
    : {
        type: 'Warning',
        reason: workEventReasons.syncFailed,
        message: `Failed to sync ${ref} to cluster(${clusterName}), err: ${errors.join(', ')}`,
      };
}
