/**
 * The fence record in the member: ConfigMap `karmada-agent-fence` in `--fence-record-namespace`
 * (the agent's own namespace in the chart; created when missing and allowed). Every replica of the agent reads it; writes are
 * read-modify-write with the resourceVersion, retried on conflict, and serialized within a process.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ResourceClient,
  isAlreadyExists,
  isNotFound,
  joinKey,
  updateWithRetry,
  type KubeObject,
  type ResourceDescriptor,
} from '@kf/kube';
import type { ObjectMeta } from '@kf/api';
import { NAMESPACE_RESOURCE, type Namespace } from '../member/namespace.ts';
import { parseFenceRecord, renderFenceRecord, type FenceRecord, type ParsedRecord } from './fence-plan.ts';

export const FENCE_RECORD_NAME = 'karmada-agent-fence';

export interface ConfigMap extends KubeObject {
  readonly metadata: ObjectMeta;
  readonly data?: Readonly<Record<string, string>>;
}

export const CONFIG_MAP_RESOURCE: ResourceDescriptor = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  namespaced: true,
  kind: 'ConfigMap',
};

/** Load and update the record; `update` returns the record as stored. */
export interface FenceRecordStore {
  load(signal?: AbortSignal): Promise<ParsedRecord>;
  update(mutate: (r: FenceRecord) => FenceRecord | undefined, signal?: AbortSignal): Promise<FenceRecord>;
}

export class MemberFenceStore implements FenceRecordStore {
  readonly #configMaps: ResourceClient<ConfigMap>;
  readonly #namespaces: ResourceClient<Namespace>;
  readonly #namespace: string;
  readonly #key: string;
  /** The tail of this process's writes: one at a time, in order. */
  #writes: Promise<unknown> = Promise.resolve();

  constructor(member: KubeConfig, namespace: string) {
    this.#configMaps = new ResourceClient<ConfigMap>(member, CONFIG_MAP_RESOURCE);
    this.#namespaces = new ResourceClient<Namespace>(member, NAMESPACE_RESOURCE);
    this.#namespace = namespace;
    this.#key = joinKey(namespace, FENCE_RECORD_NAME);
  }

  async load(signal?: AbortSignal): Promise<ParsedRecord> {
    const cm = await this.#configMaps.find(this.#key, signal ? { signal } : {});
    return parseFenceRecord(cm?.data);
  }

  update(mutate: (r: FenceRecord) => FenceRecord | undefined, signal?: AbortSignal): Promise<FenceRecord> {
    // Another replica creating the record first is a lost race like a conflict: read and go again.
    const once = () => this.#write(mutate, signal);
    const run = this.#writes.then(() =>
      once().catch((err: unknown) => {
        if (isAlreadyExists(err)) return once();
        throw err;
      }),
    );
    this.#writes = run.catch(() => undefined);
    return run;
  }

  async #write(
    mutate: (r: FenceRecord) => FenceRecord | undefined,
    signal?: AbortSignal,
  ): Promise<FenceRecord> {
    const opts = signal ? { signal } : {};
    let stored: FenceRecord | undefined;
    await updateWithRetry<ConfigMap | undefined>({
      read: () => this.#configMaps.find(this.#key, opts),
      mutate: (current) => {
        const before = parseFenceRecord(current?.data).record;
        const next = mutate(before);
        stored = next ?? before;
        if (next === undefined) return undefined;
        return {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: current?.metadata ?? { name: FENCE_RECORD_NAME, namespace: this.#namespace },
          data: renderFenceRecord(next),
        };
      },
      write: async (next) => {
        if (next?.metadata.resourceVersion !== undefined) return this.#configMaps.replace(next, opts);
        return this.#create(next, opts);
      },
    });
    return stored ?? { entries: [] };
  }

  /** Creates the record, and its namespace when that is missing. */
  async #create(cm: ConfigMap | undefined, opts: { signal?: AbortSignal }): Promise<ConfigMap | undefined> {
    if (cm === undefined) return undefined;
    try {
      return await this.#configMaps.create(cm, opts);
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
    }
    await this.#namespaces.create({ metadata: { name: this.#namespace } }, opts).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
    return this.#configMaps.create(cm, opts);
  }
}
