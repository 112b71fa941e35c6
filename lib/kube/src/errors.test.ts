import { ApiException } from '@kubernetes/client-node';
import { errors as undiciErrors } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  KubeError,
  isConflict,
  isNotFound,
  isRetryable,
  kubeErrorFromStatus,
  toKubeError,
  type KubeErrorCode,
} from './errors.ts';

const status = (code: number, reason: string, message = `${reason} happened`): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

const apiError = (code: number, body: unknown, headers: Record<string, string> = {}): ApiException<unknown> =>
  new ApiException(code, 'Unknown API Status Code!', body, headers);

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('toKubeError on ApiException (body is the Status JSON string)', () => {
  it.each<[string, number, string, KubeErrorCode]>([
    ['NotFound', 404, 'NotFound', 'NotFound'],
    ['AlreadyExists on 409', 409, 'AlreadyExists', 'AlreadyExists'],
    ['Conflict on 409', 409, 'Conflict', 'Conflict'],
    ['Expired (410) as Gone', 410, 'Expired', 'Gone'],
    ['Gone', 410, 'Gone', 'Gone'],
    ['Invalid (422)', 422, 'Invalid', 'Invalid'],
    ['BadRequest (400) as Invalid', 400, 'BadRequest', 'Invalid'],
    ['Forbidden', 403, 'Forbidden', 'Forbidden'],
    ['Unauthorized', 401, 'Unauthorized', 'Unauthorized'],
    ['TooManyRequests', 429, 'TooManyRequests', 'TooManyRequests'],
    ['ServiceUnavailable', 503, 'ServiceUnavailable', 'Unavailable'],
    ['InternalError as Unavailable', 500, 'InternalError', 'Unavailable'],
    ['Timeout (504)', 504, 'Timeout', 'Timeout'],
    ['ServerTimeout (500)', 500, 'ServerTimeout', 'Timeout'],
    ['MethodNotAllowed as Invalid', 405, 'MethodNotAllowed', 'Invalid'],
  ])('maps %s', (_name, code, reason, expected) => {
    const e = toKubeError(apiError(code, status(code, reason, 'the server says so')));
    expect(e).toBeInstanceOf(KubeError);
    expect(e.code).toBe(expected);
    expect(e.status).toBe(code);
    expect(e.reason).toBe(reason);
    expect(e.message).toBe('the server says so');
  });

  it.each<[number, KubeErrorCode]>([
    [400, 'Invalid'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
    [408, 'Timeout'],
    [409, 'Conflict'],
    [410, 'Gone'],
    [418, 'Unknown'],
    [422, 'Invalid'],
    [429, 'TooManyRequests'],
    [500, 'Unavailable'],
    [502, 'Unavailable'],
    [503, 'Unavailable'],
    [504, 'Timeout'],
  ])('falls back to the HTTP status %i when the body is not a Status', (code, expected) => {
    const e = toKubeError(apiError(code, '<html>proxy error</html>'));
    expect(e.code).toBe(expected);
    expect(e.status).toBe(code);
    expect(e.reason).toBeUndefined();
    expect(e.message).toBe(`HTTP ${code}`);
  });

  it('handles the 401 that client-node raises without a body', () => {
    const e = toKubeError(new ApiException(401, 'Unauthorized', undefined, {}));
    expect(e.code).toBe('Unauthorized');
    expect(e.status).toBe(401);
  });

  it('accepts an already parsed Status body', () => {
    const e = toKubeError(apiError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'gone' }));
    expect(e.code).toBe('NotFound');
    expect(e.message).toBe('gone');
  });

  it('reads retryAfterSeconds from the Status details, else the Retry-After header', () => {
    const body = JSON.stringify({ code: 429, reason: 'TooManyRequests', details: { retryAfterSeconds: 3 } });
    expect(toKubeError(apiError(429, body)).retryAfterMs).toBe(3000);
    expect(
      toKubeError(apiError(429, status(429, 'TooManyRequests'), { 'retry-after': '2' })).retryAfterMs,
    ).toBe(2000);
    expect(toKubeError(apiError(429, status(429, 'TooManyRequests'))).retryAfterMs).toBeUndefined();
  });

  it('keeps the ApiException as cause', () => {
    const original = apiError(404, status(404, 'NotFound'));
    expect(toKubeError(original).cause).toBe(original);
  });
});

describe('toKubeError on transport failures', () => {
  const fetchFailed = (cause: unknown): TypeError => new TypeError('fetch failed', { cause });

  it.each<[string, unknown, KubeErrorCode]>([
    [
      'fetch failed: ECONNREFUSED',
      fetchFailed(withCode('connect ECONNREFUSED 127.0.0.1:6443', 'ECONNREFUSED')),
      'Network',
    ],
    ['fetch failed: ECONNRESET', fetchFailed(withCode('read ECONNRESET', 'ECONNRESET')), 'Network'],
    ['fetch failed: ENOTFOUND', fetchFailed(withCode('getaddrinfo ENOTFOUND api', 'ENOTFOUND')), 'Network'],
    [
      'fetch failed: both address families refused',
      fetchFailed(new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')])),
      'Network',
    ],
    ['fetch failed: TLS', fetchFailed(withCode('altname', 'ERR_TLS_CERT_ALTNAME_INVALID')), 'Network'],
    [
      'fetch failed: self-signed',
      fetchFailed(withCode('self signed', 'DEPTH_ZERO_SELF_SIGNED_CERT')),
      'Network',
    ],
    ['fetch failed without a known cause', fetchFailed(new Error('odd')), 'Network'],
    ['undici connect timeout', new undiciErrors.ConnectTimeoutError(), 'Network'],
    ['undici socket error', new undiciErrors.SocketError('other side closed'), 'Network'],
    ['undici headers timeout', new undiciErrors.HeadersTimeoutError(), 'Timeout'],
    ['undici body timeout', new undiciErrors.BodyTimeoutError(), 'Timeout'],
    ['undici aborted request', new undiciErrors.RequestAbortedError(), 'Timeout'],
    [
      'AbortSignal.timeout()',
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      'Timeout',
    ],
    ['AbortController.abort()', new DOMException('This operation was aborted', 'AbortError'), 'Timeout'],
    ['bare ECONNREFUSED', withCode('connect ECONNREFUSED', 'ECONNREFUSED'), 'Network'],
    ['a plain Error', new Error('boom'), 'Unknown'],
    ['a string', 'boom', 'Unknown'],
    ['undefined', undefined, 'Unknown'],
  ])('maps %s', (_name, err, expected) => {
    const e = toKubeError(err);
    expect(e.code).toBe(expected);
    expect(e.status).toBeUndefined();
    expect(e.cause).toBe(err);
  });

  it.each([
    [
      'a message that names its code once',
      withCode('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'),
      'connect ECONNREFUSED 127.0.0.1:1',
    ],
    [
      'a message without its code, after it',
      withCode('other side closed', 'UND_ERR_SOCKET'),
      'UND_ERR_SOCKET: other side closed',
    ],
  ])('words %s', (_name, err, message) => {
    expect(toKubeError(new TypeError('fetch failed', { cause: err })).message).toBe(message);
  });

  it('returns a KubeError unchanged', () => {
    const e = new KubeError('Conflict', 'x');
    expect(toKubeError(e)).toBe(e);
  });

  it('survives a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(toKubeError(a).code).toBe('Unknown');
  });
});

describe('kubeErrorFromStatus (watch ERROR events)', () => {
  it('takes the code from the Status', () => {
    const e = kubeErrorFromStatus({
      kind: 'Status',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version',
    });
    expect(e.code).toBe('Gone');
    expect(e.status).toBe(410);
    expect(e.message).toBe('too old resource version');
  });

  it('is Unknown for a Status without code or reason', () => {
    expect(kubeErrorFromStatus({ kind: 'Status' }).code).toBe('Unknown');
  });
});

describe('predicates', () => {
  it.each<[KubeErrorCode, boolean]>([
    ['NotFound', false],
    ['AlreadyExists', false],
    ['Conflict', true],
    ['Gone', false],
    ['Invalid', false],
    ['Forbidden', false],
    ['Unauthorized', false],
    ['TooManyRequests', true],
    ['Unavailable', true],
    ['Timeout', true],
    ['Network', true],
    ['Unknown', false],
  ])('isRetryable(%s) is %s', (code, expected) => {
    expect(isRetryable(new KubeError(code, 'x'))).toBe(expected);
  });

  it('isNotFound and isConflict look through ApiException', () => {
    expect(isNotFound(apiError(404, status(404, 'NotFound')))).toBe(true);
    expect(isNotFound(apiError(409, status(409, 'Conflict')))).toBe(false);
    expect(isConflict(apiError(409, status(409, 'Conflict')))).toBe(true);
    expect(isConflict(apiError(409, status(409, 'AlreadyExists')))).toBe(false);
    expect(isConflict(new Error('Conflict'))).toBe(false);
  });
});
