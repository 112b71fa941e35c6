import { InvalidArgumentError } from 'commander';

/** Where a server listens; an undefined host means every interface. */
export interface BindAddress {
  readonly host?: string;
  readonly port: number;
}

/**
 * Parses controller-runtime's bind address syntax: `:8080` (every interface), `127.0.0.1:0`,
 * `[::1]:9090`; `0` (or empty) means no server, returned as undefined. Throws
 * `InvalidArgumentError` (a commander error, so a flag parser reports it against the flag).
 */
export function parseBindAddress(text: string): BindAddress | undefined {
  const t = text.trim();
  if (t === '0' || t === '') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(t);
  const port = Number(m?.[3]);
  if (m === null || port > 65_535) {
    throw new InvalidArgumentError(`"${text}" is not an address like :8080 or 127.0.0.1:8080 (0 disables)`);
  }
  const host = m[1] ?? m[2] ?? '';
  return host === '' ? { port } : { host, port };
}

/**
 * Whether two addresses name the same listening socket. Port 0 asks the kernel for a fresh port
 * each time, so two of them are never the same.
 */
export function isSameBindAddress(a: BindAddress, b: BindAddress): boolean {
  return a.port !== 0 && a.port === b.port && (a.host ?? '') === (b.host ?? '');
}
