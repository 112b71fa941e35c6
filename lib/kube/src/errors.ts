import { ApiException } from '@kubernetes/client-node';

/** What a failed API call is reduced to; callers branch on this, never on message text. */
export type KubeErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'Forbidden'
  | 'Unauthorized'
  | 'TooManyRequests'
  | 'Unavailable'
  /** No answer in time: the server may or may not have acted on the request. */
  | 'Timeout'
  /** The request did not reach the server (refused, reset, DNS, TLS). */
  | 'Network'
  | 'Unknown';

export interface KubeErrorOptions extends ErrorOptions {
  /** HTTP status (or the `code` of a Status in a watch ERROR event). */
  readonly status?: number;
  /** `reason` of the API server's Status (`NotFound`, `Expired`, ...). */
  readonly reason?: string;
  /** From `details.retryAfterSeconds` or a Retry-After header. */
  readonly retryAfterMs?: number;
}

/** A failed Kubernetes API call. `message` is the API server's message when it sent one. */
export class KubeError extends Error {
  override readonly name = 'KubeError';
  readonly code: KubeErrorCode;
  readonly status: number | undefined;
  readonly reason: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: KubeErrorCode, message: string, options: KubeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.reason = options.reason;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The parts of a metav1.Status that matter here; every field may be missing. */
export interface StatusLike {
  readonly kind?: unknown;
  readonly code?: unknown;
  readonly reason?: unknown;
  readonly message?: unknown;
  readonly details?: { readonly retryAfterSeconds?: unknown };
}

const BY_REASON: Readonly<Record<string, KubeErrorCode>> = {
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Expired: 'Gone',
  Invalid: 'Invalid',
  BadRequest: 'Invalid',
  MethodNotAllowed: 'Invalid',
  NotAcceptable: 'Invalid',
  RequestEntityTooLarge: 'Invalid',
  UnsupportedMediaType: 'Invalid',
  Forbidden: 'Forbidden',
  Unauthorized: 'Unauthorized',
  TooManyRequests: 'TooManyRequests',
  ServiceUnavailable: 'Unavailable',
  InternalError: 'Unavailable',
  Timeout: 'Timeout',
  ServerTimeout: 'Timeout',
};

const BY_STATUS: Readonly<Record<number, KubeErrorCode>> = {
  400: 'Invalid',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  408: 'Timeout',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  429: 'TooManyRequests',
  504: 'Timeout',
};

/** The code for an HTTP status and Status reason: a known reason wins, then the status. */
export function codeForStatus(status: number, reason: string | undefined): KubeErrorCode {
  const byReason = reason === undefined ? undefined : BY_REASON[reason];
  if (byReason !== undefined) return byReason;
  const byStatus = BY_STATUS[status];
  if (byStatus !== undefined) return byStatus;
  return status >= 500 ? 'Unavailable' : 'Unknown';
}

/**
 * A KubeError for an HTTP answer that was not 2xx. `body` is the raw body (client-node's
 * ApiException carries the Status JSON as a string) or an already parsed Status.
 */
export function kubeErrorFromResponse(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string | string[] | undefined>> = {},
  cause?: unknown,
): KubeError {
  const s = parseStatus(body);
  const reason = nonEmpty(s?.reason);
  const httpStatus = status > 0 ? status : typeof s?.code === 'number' ? s.code : 0;
  const message = nonEmpty(s?.message) ?? `HTTP ${httpStatus}${reason === undefined ? '' : ` ${reason}`}`;
  const retryAfterMs = retryAfter(s, headers);
  return new KubeError(codeForStatus(httpStatus, reason), message, {
    status: httpStatus,
    ...(reason === undefined ? {} : { reason }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A KubeError for a Status object received as a watch ERROR event. */
export function kubeErrorFromStatus(status: StatusLike): KubeError {
  return kubeErrorFromResponse(typeof status.code === 'number' ? status.code : 0, status);
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function parseStatus(body: unknown): StatusLike | undefined {
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      return isObject(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  if (Buffer.isBuffer(body)) return parseStatus(body.toString('utf8'));
  return isObject(body) ? body : undefined;
}

function retryAfter(
  s: StatusLike | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): number | undefined {
  const fromDetails = s?.details?.retryAfterSeconds;
  if (typeof fromDetails === 'number' && fromDetails > 0) return fromDetails * 1000;
  const raw = headers['retry-after'] ?? headers['Retry-After'];
  const seconds = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_ABORTED',
  'ABORT_ERR',
]);

/** Classifies one link of a cause chain; undefined when it says nothing recognisable. */
function transportCode(e: object): KubeErrorCode | undefined {
  const name = 'name' in e && typeof e.name === 'string' ? e.name : '';
  const code = 'code' in e && typeof e.code === 'string' ? e.code : '';
  if (name === 'TimeoutError' || name === 'AbortError' || TIMEOUT_CODES.has(code)) return 'Timeout';
  if (NETWORK_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) return 'Network';
  return undefined;
}

/** err, err.cause, ... and the members of an AggregateError (undici reports both address families). */
function causeChain(err: unknown): object[] {
  const out: object[] = [];
  const pending: unknown[] = [err];
  while (pending.length > 0 && out.length < 16) {
    const e = pending.shift();
    if (!isObject(e) || out.includes(e)) continue;
    out.push(e);
    if ('cause' in e) pending.push(e.cause);
    if (e instanceof AggregateError) pending.push(...(e.errors as unknown[]));
  }
  return out;
}

/**
 * Translates anything a client-node call, an undici request or an abort can throw into a
 * KubeError (a KubeError is returned as it is). The original error is kept as `cause`.
 */
export function toKubeError(err: unknown): KubeError {
  if (err instanceof KubeError) return err;
  if (err instanceof ApiException) {
    const e = err as ApiException<unknown>;
    return kubeErrorFromResponse(e.code, e.body, e.headers, err);
  }
  const chain = causeChain(err);
  for (const link of chain) {
    const code = transportCode(link);
    if (code !== undefined) return new KubeError(code, describe(link), { cause: err });
  }
  const first = chain[0];
  const fetchFailed = first instanceof TypeError && first.message === 'fetch failed';
  return new KubeError(fetchFailed ? 'Network' : 'Unknown', describe(err), { cause: err });
}

/** The error's message, after its code unless the message already names it (Node's do). */
function describe(e: unknown): string {
  if (e instanceof Error) {
    const code =
      'code' in e && typeof e.code === 'string' && !e.message.includes(e.code) ? `${e.code}: ` : '';
    return `${code}${e.message}`;
  }
  return String(e);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function hasCode(err: unknown, code: KubeErrorCode): boolean {
  return toKubeError(err).code === code;
}

/** The object does not exist (in a reconcile: it was deleted, converge). */
export const isNotFound = (err: unknown): boolean => hasCode(err, 'NotFound');
/** A create found the name taken. */
export const isAlreadyExists = (err: unknown): boolean => hasCode(err, 'AlreadyExists');
/** A write lost a race (stale resourceVersion or precondition): re-read and try again. */
export const isConflict = (err: unknown): boolean => hasCode(err, 'Conflict');
/** The identity may not do this (RBAC or admission said no). */
export const isForbidden = (err: unknown): boolean => hasCode(err, 'Forbidden');
/** The resourceVersion (or continue token) is too old: list again. */
export const isGone = (err: unknown): boolean => hasCode(err, 'Gone');

const RETRYABLE: ReadonlySet<KubeErrorCode> = new Set<KubeErrorCode>([
  'Conflict',
  'TooManyRequests',
  'Unavailable',
  'Timeout',
  'Network',
]);

/**
 * True when the same call may succeed later without anything else changing (Conflict after a
 * re-read). NotFound, Invalid, Forbidden, Gone (relist instead) and unknown errors are not.
 */
export function isRetryable(err: unknown): boolean {
  return RETRYABLE.has(toKubeError(err).code);
}
