import { formatDuration } from '@kf/runtime';
import type { RecordType } from './message.ts';
import type { ResolvConf } from './resolv-conf.ts';
import { candidateNames } from './search-list.ts';
import type { Exchange, ExchangeOutcome, Exchanger, Transport } from './transport.ts';

/** How a lookup ended; the `result` label of the lookup histogram (a fixed, small set). */
export type LookupResultKind =
  | 'success'
  /** Every candidate name was answered NXDOMAIN. */
  | 'nxdomain'
  /** Some candidate exists but has no record of the asked type, none had one. */
  | 'nodata'
  /** Some candidate got only server failures (SERVFAIL, REFUSED, NOTIMP, …) from every server. */
  | 'servfail'
  /** No server answered in time. */
  | 'timeout'
  /** The last server could not be reached (refused, unreachable). */
  | 'network_error'
  /** The last server sent a reply that could not be trusted. */
  | 'bad_answer'
  /** The probe is shutting down. */
  | 'aborted';

export const LOOKUP_RESULT_KINDS: readonly LookupResultKind[] = Object.freeze([
  'success',
  'nxdomain',
  'nodata',
  'servfail',
  'timeout',
  'network_error',
  'bad_answer',
  'aborted',
]);

/** One query to one server for one candidate name. */
export interface Attempt {
  readonly fqdn: string;
  readonly server: string;
  readonly transport: Transport;
  readonly outcome: ExchangeOutcome;
  readonly latencyMs: number;
}

export interface LookupResult {
  /** The name as configured (`kubernetes.default`). */
  readonly name: string;
  readonly result: LookupResultKind;
  /** Addresses of the answer; empty unless `result` is `success`. */
  readonly addresses: readonly string[];
  /** The candidate that answered, on success. */
  readonly fqdn?: string;
  /** Response code of the last reply received, if any. */
  readonly rcode?: string;
  readonly attempts: readonly Attempt[];
  /** One sentence for the Node condition and logs; no timings, so it only changes with the cause. */
  readonly message: string;
}

export interface LookupOptions {
  readonly conf: ResolvConf;
  /** Port of every name server (53; other values for tests and unusual set-ups). */
  readonly port: number;
  readonly type: RecordType;
  /** With `options rotate`: the server to start with (the caller counts lookups). */
  readonly rotation?: number;
  readonly signal?: AbortSignal;
}

/** How one candidate name fared over all servers and attempts. */
type NameOutcome =
  | { readonly kind: 'answer'; readonly addresses: readonly string[] }
  | { readonly kind: 'nxdomain' | 'nodata' | 'servfail' }
  | { readonly kind: 'unreachable'; readonly last: Attempt | undefined };

/**
 * Resolves `name` like glibc's res_nsearch + res_send (and so `nslookup` in a pod):
 * candidates in search-list order (see {@link candidateNames}); for each, up to `attempts`
 * rounds over the name servers, moving to the next server on a timeout, a socket error, an
 * untrustworthy reply or a server failure (SERVFAIL, REFUSED, NOTIMP, FORMERR). An answer with
 * addresses ends the lookup; NXDOMAIN or NODATA move to the next candidate, as do server
 * failures from every server; when no server answered at all the search stops there, as glibc's
 * does. Never rejects.
 */
export async function lookup(name: string, opts: LookupOptions, exchanger: Exchanger): Promise<LookupResult> {
  const attempts: Attempt[] = [];
  const seen = { servfail: false, nodata: false };
  const candidates = candidateNames(name, opts.conf);
  for (const fqdn of candidates) {
    const outcome = await queryName(fqdn, opts, exchanger, attempts);
    switch (outcome.kind) {
      case 'answer':
        return finish(name, 'success', attempts, { fqdn, addresses: outcome.addresses });
      case 'nxdomain':
        break;
      case 'nodata':
        seen.nodata = true;
        break;
      case 'servfail':
        seen.servfail = true;
        break;
      case 'unreachable':
        return finish(name, unreachableKind(outcome.last), attempts, { candidates, opts });
    }
  }
  const kind = seen.servfail ? 'servfail' : seen.nodata ? 'nodata' : 'nxdomain';
  return finish(name, kind, attempts, { candidates, opts });
}

async function queryName(
  fqdn: string,
  opts: LookupOptions,
  exchanger: Exchanger,
  attempts: Attempt[],
): Promise<NameOutcome> {
  const servers = opts.conf.nameservers;
  const first = opts.conf.rotate ? (opts.rotation ?? 0) : 0;
  let servfail = false;
  for (let round = 0; round < opts.conf.attempts; round++) {
    for (let i = 0; i < servers.length; i++) {
      if (opts.signal?.aborted === true) return { kind: 'unreachable', last: attempts.at(-1) };
      const server = servers[(first + i) % servers.length] ?? '';
      const x = await exchanger(request(fqdn, server, opts));
      attempts.push(attemptOf(fqdn, server, x));
      const final = finalFor(x.outcome);
      if (final !== undefined) return final;
      // A server failure: this server cannot help; glibc asks the next one.
      if (x.outcome.kind === 'reply') servfail = true;
    }
  }
  return servfail ? { kind: 'servfail' } : { kind: 'unreachable', last: attempts.at(-1) };
}

/** The outcome for the whole name when this reply settles it (an answer, NXDOMAIN, NODATA). */
function finalFor(o: ExchangeOutcome): NameOutcome | undefined {
  if (o.kind !== 'reply') return undefined;
  if (o.rcode === 'NOERROR')
    return o.addresses.length > 0 ? { kind: 'answer', addresses: o.addresses } : { kind: 'nodata' };
  if (o.rcode === 'NXDOMAIN') return { kind: 'nxdomain' };
  return undefined;
}

function request(fqdn: string, server: string, opts: LookupOptions): Parameters<Exchanger>[0] {
  return {
    server,
    port: opts.port,
    question: { name: fqdn, type: opts.type },
    timeoutMs: opts.conf.timeoutMs,
    edns0: opts.conf.edns0,
    tcpOnly: opts.conf.useTcp,
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
  };
}

function attemptOf(fqdn: string, server: string, x: Exchange): Attempt {
  return { fqdn, server, transport: x.transport, outcome: x.outcome, latencyMs: x.latencyMs };
}

function unreachableKind(last: Attempt | undefined): LookupResultKind {
  switch (last?.outcome.kind) {
    case 'timeout':
      return 'timeout';
    case 'malformed':
      return 'bad_answer';
    case 'error':
      return last.outcome.code === 'ABORTED' ? 'aborted' : 'network_error';
    case 'reply':
    case undefined:
      return 'aborted'; // only an abort ends a round without any attempt
  }
}

interface Detail {
  readonly attempts?: readonly Attempt[];
  readonly fqdn?: string;
  readonly addresses?: readonly string[];
  readonly candidates?: readonly string[];
  readonly opts?: LookupOptions;
}

function finish(
  name: string,
  result: LookupResultKind,
  attempts: readonly Attempt[],
  d: Detail,
): LookupResult {
  const last = attempts.at(-1);
  const rcode = [...attempts].reverse().find((a) => a.outcome.kind === 'reply')?.outcome;
  return {
    name,
    result,
    addresses: d.addresses ?? [],
    ...(d.fqdn === undefined ? {} : { fqdn: d.fqdn }),
    ...(rcode?.kind === 'reply' ? { rcode: rcode.rcode } : {}),
    attempts,
    message: describe(name, result, last, { ...d, attempts }),
  };
}

/** A sentence naming the cause, e.g. `kubernetes.default did not resolve: NXDOMAIN for …`. */
function describe(name: string, result: LookupResultKind, last: Attempt | undefined, d: Detail): string {
  return result === 'success'
    ? `${name} resolves (${d.fqdn ?? name})`
    : `${name} did not resolve: ${CAUSES[result](last, d)}`;
}

type Cause = (last: Attempt | undefined, d: Detail) => string;

const CAUSES: Readonly<Record<Exclude<LookupResultKind, 'success'>, Cause>> = {
  nxdomain: (_last, d) => `NXDOMAIN for ${tried(d)}`,
  nodata: (_last, d) => `no ${d.opts?.type ?? 'A'} record for ${tried(d)}`,
  servfail: (_last, d) => `the name servers failed (${serverFailure(d.attempts)}) for ${tried(d)}`,
  timeout: (last, d) =>
    `no answer from ${where(last, d)} within ${formatDuration(d.opts?.conf.timeoutMs ?? 0)} for ${last?.fqdn ?? ''}`,
  network_error: (last, d) =>
    `${where(last, d)} over ${last?.transport ?? 'udp'}: ${errorText(last)} for ${last?.fqdn ?? ''}`,
  bad_answer: (last, d) =>
    `bad answer from ${where(last, d)} over ${last?.transport ?? 'udp'}: ${malformedText(last)}`,
  aborted: () => 'the lookup was interrupted',
};

function tried(d: Detail): string {
  return (d.candidates ?? []).join(', ');
}

function where(last: Attempt | undefined, d: Detail): string {
  return last === undefined || d.opts === undefined ? 'the name servers' : hostPort(last.server, d.opts.port);
}

/** The response code of the last server failure (SERVFAIL, REFUSED, …). */
function serverFailure(attempts: readonly Attempt[] | undefined): string {
  for (const a of [...(attempts ?? [])].reverse()) {
    if (a.outcome.kind === 'reply' && a.outcome.rcode !== 'NOERROR' && a.outcome.rcode !== 'NXDOMAIN')
      return a.outcome.rcode;
  }
  return 'SERVFAIL';
}

function errorText(last: Attempt | undefined): string {
  if (last?.outcome.kind !== 'error') return 'error';
  return last.outcome.code === 'ECONNREFUSED' ? 'connection refused' : last.outcome.code;
}

function malformedText(last: Attempt | undefined): string {
  return last?.outcome.kind === 'malformed' ? last.outcome.why : 'unreadable reply';
}

function hostPort(server: string, port: number): string {
  return server.includes(':') ? `[${server}]:${port}` : `${server}:${port}`;
}
