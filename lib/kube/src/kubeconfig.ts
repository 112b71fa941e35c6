import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
  Observable,
  ServerConfiguration,
  createConfiguration,
  setHeaderMiddleware,
  type ApiConstructor,
  type ApiType,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { ConfigError } from '@kf/runtime';
import { KubeTransport } from './transport.ts';
import { mergeKubeConfigs } from './kubeconfig-merge.ts';

/** Default deadline of one API call (client-node has none). */
export const DEFAULT_API_TIMEOUT_MS = 30_000;

/** A kubeconfig that cannot be used: missing file, unknown context, no cluster. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

export interface LoadKubeConfigOptions {
  /**
   * A kubeconfig file, or the files of a `$KUBECONFIG` list, merged as client-go merges them
   * ({@link mergeKubeConfigs}; files of a list that do not exist are skipped, as client-go skips
   * them). Undefined or empty: the pod's service account.
   */
  readonly path?: string | readonly string[] | undefined;
  /** Context to use instead of the file's current-context. */
  readonly context?: string | undefined;
}

/**
 * Loads one KubeConfig: from a file or a list of files (optionally switching context) or,
 * without a path, from the pod's service account (client-node re-reads that token every 60 s).
 * Throws {@link KubeConfigError} saying in one line what is wrong.
 */
export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const single = typeof opts.path === 'string';
  const paths = single ? [opts.path].filter((p) => p !== '') : [...(opts.path ?? [])];
  if (paths.length === 0) return loadInCluster(opts.context);
  const kc = loadFiles(paths, !single);
  const named = `kubeconfig ${paths.join(delimiter)}`;
  if (opts.context !== undefined && opts.context !== '') {
    if (kc.getContextObject(opts.context) === null) {
      throw new KubeConfigError(`${named} has no context ${opts.context}`);
    }
    kc.setCurrentContext(opts.context);
  }
  if (kc.getCurrentCluster() === null) {
    throw new KubeConfigError(`${named} names no cluster for its current context`);
  }
  return kc;
}

function loadInCluster(context: string | undefined): KubeConfig {
  if (context !== undefined && context !== '') {
    throw new KubeConfigError(`context ${context} needs a kubeconfig file`);
  }
  if (process.env.KUBERNETES_SERVICE_HOST === undefined) {
    throw new KubeConfigError(
      'no kubeconfig given and not running in a cluster (KUBERNETES_SERVICE_HOST unset)',
    );
  }
  const kc = new KubeConfig();
  kc.loadFromCluster();
  return kc;
}

/** One file as it is, or a `$KUBECONFIG` list merged (missing files of a list skipped). */
function loadFiles(paths: readonly string[], list: boolean): KubeConfig {
  const files: KubeConfig[] = [];
  for (const path of paths) {
    if (list && !existsSync(path)) continue;
    files.push(loadFile(path));
  }
  if (files.length === 0) {
    throw new KubeConfigError(`none of the kubeconfig files ${paths.join(delimiter)} exists`);
  }
  if (files.length === 1 && files[0] !== undefined) return files[0];
  const kc = new KubeConfig();
  const merged = mergeKubeConfigs(files);
  kc.loadFromOptions({
    clusters: merged.clusters,
    users: merged.users,
    contexts: merged.contexts,
    currentContext: merged.currentContext,
  });
  return kc;
}

function loadFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (err) {
    throw new KubeConfigError(`cannot load kubeconfig ${path}: ${firstLine(err)}`, { cause: err });
  }
  return kc;
}

/** The first line of an error's message (YAML errors add a snippet of the file below it). */
function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n', 1)[0]?.trim() ?? message;
}

/** The API server URL of the KubeConfig's current context. */
export function serverOf(kc: KubeConfig): string {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new KubeConfigError('the current context names no cluster');
  return cluster.server;
}

/**
 * Middleware that aborts a call (including reading its body) after `ms`, and when `signal`
 * aborts. It keeps any signal set before it, so the earliest deadline wins.
 */
export function timeoutMiddleware(ms: number, signal?: AbortSignal): ObservableMiddleware {
  return {
    pre: (c: RequestContext) => {
      // AbortSignal.timeout takes whole milliseconds only.
      const signals = [AbortSignal.timeout(Math.max(1, Math.ceil(ms)))];
      const before = c.getSignal();
      if (before !== undefined) signals.push(before);
      if (signal !== undefined) signals.push(signal);
      c.setSignal(AbortSignal.any(signals));
      return new Observable(Promise.resolve(c));
    },
    post: (r: ResponseContext) => new Observable(Promise.resolve(r)),
  };
}

/**
 * Per-call options adding a deadline (and optionally a cancel signal) to one client-node call:
 * `await coord.readNamespacedLease({ name, namespace }, apiTimeout(5_000))`. Combine with
 * `setHeaderOptions(key, value, apiTimeout(ms))`.
 */
export function apiTimeout(ms: number, signal?: AbortSignal): ConfigurationOptions {
  return { middlewareMergeStrategy: 'append', middleware: [timeoutMiddleware(ms, signal)] };
}

export interface ApiClientOptions {
  /** Deadline of every call made through the client (default 30 s). */
  readonly timeoutMs?: number;
  /** Extra middleware run on every call, after the deadline is set. */
  readonly middleware?: readonly ObservableMiddleware[];
}

/**
 * client-node 2.x builds a new undici Agent (so a new TLS connection) for every call. This
 * middleware sends calls through one pool per client instead, rebuilt only when the TLS
 * material of the KubeConfig changes. Clusters behind a proxy keep client-node's dispatcher.
 */
function sharedPoolMiddleware(kc: KubeConfig): ObservableMiddleware | undefined {
  if (kc.getCurrentCluster()?.proxyUrl !== undefined) return undefined;
  const transport = new KubeTransport(kc);
  return {
    pre: (c: RequestContext) =>
      new Observable(
        transport.connect().then((conn) => {
          c.setDispatcher(conn.dispatcher);
          return c;
        }),
      ),
    post: (r: ResponseContext) => new Observable(Promise.resolve(r)),
  };
}

/**
 * Like `kc.makeApiClient(Api)` but every call carries a deadline and calls share one connection
 * pool. Per-call options with `middlewareMergeStrategy: 'append'` (apiTimeout, setHeaderOptions)
 * keep both. The middleware must not depend on its order: client-node 2.0 reverses the client's
 * middleware array in place after each call made without per-call middleware.
 */
export function makeApiClient<T extends ApiType>(
  kc: KubeConfig,
  api: ApiConstructor<T>,
  opts: ApiClientOptions = {},
): T {
  const pool = sharedPoolMiddleware(kc);
  const config = createConfiguration({
    baseServer: new ServerConfiguration(serverOf(kc), {}),
    authMethods: { default: kc },
    middleware: [
      setHeaderMiddleware('User-Agent', 'karmada-failover'),
      timeoutMiddleware(opts.timeoutMs ?? DEFAULT_API_TIMEOUT_MS),
      ...(pool === undefined ? [] : [pool]),
      ...(opts.middleware ?? []),
    ],
  });
  return new api(config);
}

/** Typed clients bound to one cluster's KubeConfig, made on first use, all with a default deadline. */
export interface KubeClients {
  readonly kubeConfig: KubeConfig;
  readonly timeoutMs: number;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  readonly customObjects: CustomObjectsApi;
  readonly apps: AppsV1Api;
  readonly apiextensions: ApiextensionsV1Api;
  readonly events: EventsV1Api;
  /** Any other generated API class, with the same deadline. */
  api<T extends ApiType>(api: ApiConstructor<T>): T;
}

/** One factory per cluster: `const karmada = kubeClients(loadKubeConfig({ path }))`. */
export function kubeClients(kc: KubeConfig, opts: { readonly timeoutMs?: number } = {}): KubeClients {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_API_TIMEOUT_MS;
  const made = new Map<ApiConstructor<ApiType>, ApiType>();
  const api = <T extends ApiType>(ctor: ApiConstructor<T>): T => {
    let client = made.get(ctor) as T | undefined;
    if (client === undefined) {
      client = makeApiClient(kc, ctor, { timeoutMs });
      made.set(ctor, client);
    }
    return client;
  };
  return {
    kubeConfig: kc,
    timeoutMs,
    api,
    get core() {
      return api(CoreV1Api);
    },
    get coordination() {
      return api(CoordinationV1Api);
    },
    get customObjects() {
      return api(CustomObjectsApi);
    },
    get apps() {
      return api(AppsV1Api);
    },
    get apiextensions() {
      return api(ApiextensionsV1Api);
    },
    get events() {
      return api(EventsV1Api);
    },
  };
}

/** One kubeconfig a process needs, with the name the operator knows it by. */
export interface NeededKubeConfig {
  /** How problems name it: `member`, `control plane`. */
  readonly label: string;
  /** Where to load it from; may throw {@link KubeConfigError} when no source applies. */
  readonly options: LoadKubeConfigOptions | (() => LoadKubeConfigOptions);
}

/**
 * Loads every kubeconfig a process needs before it does anything else. Throws one ConfigError
 * naming each that cannot be used (`member kubeconfig: kubeconfig /x has no context y`), so that
 * the process exits 2 with the list instead of failing later with a stack.
 */
export function loadKubeConfigs<K extends string>(
  needed: Readonly<Record<K, NeededKubeConfig>>,
): Record<K, KubeConfig> {
  const problems: string[] = [];
  const loaded: Partial<Record<K, KubeConfig>> = {};
  for (const key of Object.keys(needed) as K[]) {
    const { label, options } = needed[key];
    try {
      loaded[key] = loadKubeConfig(typeof options === 'function' ? options() : options);
    } catch (err: unknown) {
      if (!(err instanceof KubeConfigError)) throw err;
      problems.push(`${label} kubeconfig: ${err.message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return loaded as Record<K, KubeConfig>;
}
