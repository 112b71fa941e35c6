import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where loopback servers of the harness listen: below the kernel's ephemeral range. A port taken
 * from that range (what `listen(0)` gives) is also where outgoing connections get their local
 * ports, so a server stopped for a while (a control plane killed for two minutes) could find its
 * port held by some client's connection when it starts again, and fail to bind. Ports below the
 * range are never handed to clients. Each port picked is also reserved for the life of the process
 * that picked it (a file in a shared folder), so that a test running beside it cannot pick it while
 * its server is stopped.
 */
export interface PortRange {
  readonly from: number;
  readonly to: number;
}

/** The kernel's ephemeral range (Linux defaults when it cannot be read). */
export function ephemeralRange(
  read: () => string = () => readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'),
): PortRange {
  try {
    const [from, to] = read().trim().split(/\s+/).map(Number);
    if (
      from !== undefined &&
      to !== undefined &&
      Number.isInteger(from) &&
      Number.isInteger(to) &&
      from <= to
    ) {
      return { from, to };
    }
  } catch {
    // not Linux, or /proc unavailable: the defaults below
  }
  return { from: 32768, to: 60999 };
}

/** Ports the harness picks from: 10000 up to the ephemeral range (empty when it starts that low). */
export function serverPortRange(ephemeral: PortRange = ephemeralRange()): PortRange | undefined {
  const from = 10_000;
  const to = Math.min(ephemeral.from - 1, 65_535);
  return to - from >= 1_000 ? { from, to } : undefined;
}

/**
 * Ports the Fetch standard blocks ("bad ports"): `fetch` refuses them before connecting, so a
 * server there could never be probed with it. Only 10080 lies in the range picked from, but the
 * whole list is kept so that any range stays safe.
 */
const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Picks attempts before falling back to a port from the kernel. */
const ATTEMPTS = 50;

/**
 * Ports this process handed out already. The reservation file says which process holds a port, not
 * which of its servers: without this, two clusters starting side by side in one test file could be
 * given the same port before either had bound it.
 */
const handedOut = new Set<number>();

/** Where reservations are kept: one file per port, holding the reserving process's pid. */
const RESERVATIONS = join(tmpdir(), 'karmada-failover-ports');

/**
 * A free loopback TCP port for a server the harness starts: a random one below the ephemeral range
 * that no live process reserved, that `fetch` may connect to, and that can be bound now (see
 * {@link PortRange}), else whatever the kernel gives.
 */
export async function freePort(
  range = serverPortRange(),
  random: () => number = Math.random,
): Promise<number> {
  if (range !== undefined) {
    for (let i = 0; i < ATTEMPTS; i++) {
      const port = range.from + Math.floor(random() * (range.to - range.from + 1));
      if (FETCH_BLOCKED_PORTS.has(port) || handedOut.has(port) || !reserve(port)) continue;
      // Claimed before the bind check, which awaits: a concurrent pick must not take it meanwhile.
      handedOut.add(port);
      if (await canBind(port)) return port;
      handedOut.delete(port);
    }
  }
  for (;;) {
    const port = await listenAndRelease(0);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** Claims `port` for this process unless a live process holds it. */
function reserve(port: number): boolean {
  const file = join(RESERVATIONS, String(port));
  try {
    mkdirSync(RESERVATIONS, { recursive: true });
    writeFileSync(file, String(process.pid), { flag: 'wx' }); // exclusive: one claimant wins
    return true;
  } catch {
    // held already: ours, or a live process's, or a stale one left by a process that ended
  }
  try {
    const holder = Number(readFileSync(file, 'utf8'));
    if (holder === process.pid) return true;
    if (isAlive(holder)) return false;
    writeFileSync(file, String(process.pid));
    return true;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err: unknown) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function canBind(port: number): Promise<boolean> {
  try {
    await listenAndRelease(port);
    return true;
  } catch {
    return false;
  }
}

function listenAndRelease(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(bound);
      });
    });
  });
}
