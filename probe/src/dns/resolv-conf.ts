import { isIP } from 'node:net';

/**
 * What a stub resolver takes from resolv.conf, with glibc's defaults and limits
 * (resolv.conf(5)): at most three name servers, `ndots` 1 (capped at 15), `timeout` 5 s (capped
 * at 30 s), `attempts` 2 (capped at 5).
 */
export interface ResolvConf {
  /** IP literals, in file order; glibc's default 127.0.0.1 when the file names none. */
  readonly nameservers: readonly string[];
  /** Search domains without trailing dots, in order. */
  readonly search: readonly string[];
  /** Names with at least this many dots are tried as written before the search list. */
  readonly ndots: number;
  /** How long to wait for one server's answer to one query. */
  readonly timeoutMs: number;
  /** Rounds over all name servers before giving up on one name. */
  readonly attempts: number;
  /** `options rotate`: start each query at the next server instead of the first. */
  readonly rotate: boolean;
  /** `options use-vc`: query over TCP only. */
  readonly useTcp: boolean;
  /** `options edns0`: advertise a 1232-byte UDP payload instead of 512 bytes. */
  readonly edns0: boolean;
}

export const MAX_NAMESERVERS = 3;
export const RESOLV_CONF_DEFAULTS: ResolvConf = Object.freeze({
  nameservers: Object.freeze(['127.0.0.1']),
  search: Object.freeze([]),
  ndots: 1,
  timeoutMs: 5_000,
  attempts: 2,
  rotate: false,
  useTcp: false,
  edns0: false,
});

const MAX_NDOTS = 15;
const MAX_TIMEOUT_S = 30;
const MAX_ATTEMPTS = 5;

interface Draft {
  nameservers: string[];
  search: string[];
  ndots: number;
  timeoutMs: number;
  attempts: number;
  rotate: boolean;
  useTcp: boolean;
  edns0: boolean;
}

/**
 * Parses resolv.conf text the way glibc reads it: `#` and `;` start comments, unknown keywords
 * and malformed values are ignored, `domain` and `search` replace each other (the last one wins),
 * name servers beyond the third are ignored, and option values are clamped to glibc's limits.
 * Never throws: a resolver must work with whatever file the pod got.
 */
export function parseResolvConf(text: string): ResolvConf {
  const d: Draft = { ...RESOLV_CONF_DEFAULTS, nameservers: [], search: [] };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const [keyword, ...args] = line.split(/\s+/);
    if (keyword === undefined || keyword === '') continue;
    applyLine(d, keyword, args);
  }
  return Object.freeze({
    ...d,
    nameservers: Object.freeze(
      d.nameservers.length === 0 ? [...RESOLV_CONF_DEFAULTS.nameservers] : d.nameservers,
    ),
    search: Object.freeze(d.search),
  });
}

function applyLine(d: Draft, keyword: string, args: readonly string[]): void {
  switch (keyword) {
    case 'nameserver': {
      const address = args[0] ?? '';
      if (d.nameservers.length < MAX_NAMESERVERS && isNameserverAddress(address)) d.nameservers.push(address);
      return;
    }
    case 'domain':
      d.search = domains(args.slice(0, 1));
      return;
    case 'search':
      d.search = domains(args);
      return;
    case 'options':
      for (const option of args) applyOption(d, option);
      return;
    default:
      return; // sortlist, lookup and others do not affect how names are resolved here
  }
}

/** `options` handlers by name; each gets the numeric value when the option has a valid one. */
const OPTIONS: Readonly<Record<string, (d: Draft, n: number | undefined) => void>> = {
  ndots: (d, n) => {
    if (n !== undefined) d.ndots = Math.min(n, MAX_NDOTS);
  },
  timeout: (d, n) => {
    if (n !== undefined && n >= 1) d.timeoutMs = Math.min(n, MAX_TIMEOUT_S) * 1000;
  },
  attempts: (d, n) => {
    if (n !== undefined && n >= 1) d.attempts = Math.min(n, MAX_ATTEMPTS);
  },
  rotate: (d) => {
    d.rotate = true;
  },
  'use-vc': (d) => {
    d.useTcp = true;
  },
  edns0: (d) => {
    d.edns0 = true;
  },
};

function applyOption(d: Draft, option: string): void {
  const [name = '', value] = option.split(':', 2);
  const n = value === undefined || !/^\d+$/.test(value) ? undefined : Number(value);
  if (Object.hasOwn(OPTIONS, name)) OPTIONS[name]?.(d, n);
}

/** Search domains: trailing dots dropped, empty entries and the root skipped. */
function domains(args: readonly string[]): string[] {
  return args.map((a) => a.replace(/\.+$/, '')).filter((a) => a !== '');
}

/** An IPv4 or IPv6 literal; an IPv6 zone (`fe80::1%eth0`) is allowed. */
function isNameserverAddress(address: string): boolean {
  return isIP(address.replace(/%[^%]+$/, '')) !== 0;
}

/** Keywords glibc's resolver reads from resolv.conf (resolv.conf(5)). */
const KEYWORDS = new Set(['nameserver', 'domain', 'search', 'options', 'sortlist', 'lookup', 'family']);

/**
 * Why `text` cannot be the resolv.conf a pod resolves with, or undefined when it can. glibc makes
 * do with anything ({@link parseResolvConf} does too), but a file that is binary, that has lines
 * none of which is a resolv.conf line, or whose `nameserver` lines name no address means the
 * probe was pointed at the wrong file: lookups through 127.0.0.1 would then fail, and reporting
 * that as a DNS failure could steer traffic away from a healthy cluster. An empty file (or one of
 * comments) is fine: glibc asks 127.0.0.1, and so does the probe.
 */
export function resolvConfProblem(text: string): string | undefined {
  if (text.includes('\u0000') || text.includes('\uFFFD')) return 'is not a text file';
  const lines = text
    .split(/\r?\n/)
    .map((raw) => raw.replace(/[#;].*$/, '').trim())
    .filter((line) => line !== '');
  const keywords = lines.map((line) => line.split(/\s+/, 1)[0] ?? '');
  if (lines.length > 0 && !keywords.some((k) => KEYWORDS.has(k))) {
    return 'has no resolv.conf line (nameserver, search, domain, options)';
  }
  const servers = lines
    .filter((_line, i) => keywords[i] === 'nameserver')
    .map((l) => l.split(/\s+/)[1] ?? '');
  if (servers.length > 0 && !servers.some(isNameserverAddress)) return 'names no name server by IP address';
  return undefined;
}
