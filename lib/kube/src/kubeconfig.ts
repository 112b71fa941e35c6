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
import { KubeTransport } from './transport.ts';

/** Default deadline of one API call (client-node has none). */
export const DEFAULT_API_TIMEOUT_MS = 30_000;

/** A kubeconfig that cannot be used: missing file, unknown context, no cluster. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

export interface LoadKubeConfigOptions {
  /** Path of a kubeconfig file; when undefined the in-cluster service account is used. */
  readonly path?: string | undefined;
  /** Context to use instead of the file's current-context. */
  readonly context?: string | undefined;
}

/**
 * Loads one KubeConfig: from a file (optionally switching context) or, without a path, from
 * the pod's service account (client-node re-reads that token every 60 s).
 */
export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  if (opts.path === undefined || opts.path === '') {
    if (opts.context !== undefined) throw new KubeConfigError('a context needs a kubeconfig file');
    if (process.env.KUBERNETES_SERVICE_HOST === undefined) {
      throw new KubeConfigError(
        'no kubeconfig given and not running in a cluster (KUBERNETES_SERVICE_HOST unset)',
      );
    }
    kc.loadFromCluster();
    return kc;
  }
  try {
    kc.loadFromFile(opts.path);
  } catch (err) {
    throw new KubeConfigError(`cannot load kubeconfig ${opts.path}`, { cause: err });
  }
  if (opts.context !== undefined && opts.context !== '') {
    if (kc.getContextObject(opts.context) === null) {
      throw new KubeConfigError(`kubeconfig ${opts.path} has no context ${opts.context}`);
    }
    kc.setCurrentContext(opts.context);
  }
  if (kc.getCurrentCluster() === null) {
    throw new KubeConfigError(`kubeconfig ${opts.path} names no cluster for its current context`);
  }
  return kc;
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
