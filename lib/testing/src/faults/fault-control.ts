/**
 * Faults on a running failover federation driven from another process: the process that owns the
 * federation (and so its proxies and child processes) serves JSON commands on a Unix socket in the
 * run folder, and `federation faults …` sends them. A fault given a duration is undone by the
 * owner when it ends, so the sender need not stay.
 */
import { rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { FederationLinks, LinkState } from './federation-links.ts';

/** The socket's name in a run folder. */
const FAULT_SOCKET = 'faults.sock';

/** The key of a pending control-plane resume (links are keyed by their names). */
const CONTROL_PLANE = 'control-plane';

export function faultSocketPath(runDir: string): string {
  return join(runDir, FAULT_SOCKET);
}

/** One command; `forMs` undoes it after that long (restore the link, resume the control plane). */
export type FaultCommand =
  | { readonly op: 'cut' | 'blackhole'; readonly link: string; readonly forMs?: number }
  | { readonly op: 'delay'; readonly link: string; readonly delayMs: number; readonly forMs?: number }
  | { readonly op: 'restore'; readonly link?: string }
  | { readonly op: 'kill-control-plane'; readonly forMs?: number }
  | { readonly op: 'resume-control-plane' }
  | { readonly op: 'restart-agent'; readonly member: string };

/** What the owner of a federation offers (FailoverFederation has it all). */
export interface FaultTarget {
  readonly links: FederationLinks;
  killControlPlane(): Promise<void>;
  resumeControlPlane(): Promise<void>;
  restartAgent(member: string): Promise<void>;
}

type Fields = Readonly<Record<string, unknown>>;

function optionalMs(o: Fields, key: string, problems: string[]): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    problems.push(`${key} must be a duration in ms, got ${JSON.stringify(v)}`);
    return undefined;
  }
  return v;
}

function requiredString(o: Fields, key: string, problems: string[]): string {
  const v = o[key];
  if (typeof v === 'string' && v !== '') return v;
  problems.push(`${key} is required`);
  return '';
}

/** `{ forMs }` when a fault is timed, `{}` when it lasts until undone. */
export const withFor = (forMs: number | undefined): { forMs?: number } =>
  forMs === undefined ? {} : { forMs };

/** `cut` and `blackhole` take the same fields. */
const breakLink =
  (op: 'cut' | 'blackhole') =>
  (o: Fields, p: string[]): FaultCommand => ({
    op,
    link: requiredString(o, 'link', p),
    ...withFor(optionalMs(o, 'forMs', p)),
  });

/** Builds each command from its fields, adding what is wrong to `problems`. */
const BUILDERS: Readonly<Record<FaultCommand['op'], (o: Fields, problems: string[]) => FaultCommand>> = {
  cut: breakLink('cut'),
  blackhole: breakLink('blackhole'),
  delay: (o, p) => {
    const forMs = optionalMs(o, 'forMs', p);
    const delayMs = optionalMs(o, 'delayMs', p);
    if (o.delayMs === undefined) p.push('delayMs is required');
    return { op: 'delay', link: requiredString(o, 'link', p), delayMs: delayMs ?? 0, ...withFor(forMs) };
  },
  restore: (o, p) =>
    o.link === undefined ? { op: 'restore' } : { op: 'restore', link: requiredString(o, 'link', p) },
  'kill-control-plane': (o, p) => ({ op: 'kill-control-plane', ...withFor(optionalMs(o, 'forMs', p)) }),
  'resume-control-plane': () => ({ op: 'resume-control-plane' }),
  'restart-agent': (o, p) => ({ op: 'restart-agent', member: requiredString(o, 'member', p) }),
};

const isOp = (op: unknown): op is FaultCommand['op'] => typeof op === 'string' && Object.hasOwn(BUILDERS, op);

/** Validates a decoded JSON body into a command; throws naming every problem. */
export function parseFaultCommand(body: unknown): FaultCommand {
  if (typeof body !== 'object' || body === null) throw new Error('a fault command is a JSON object');
  const o = body as Fields;
  if (!isOp(o.op)) throw new Error(`op must be one of ${Object.keys(BUILDERS).join(', ')}`);
  const problems: string[] = [];
  const cmd = BUILDERS[o.op](o, problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return cmd;
}

export interface FaultControlOptions {
  /** Told when a timed undo (restore, resume) failed: nobody waits on it. */
  readonly onError?: (err: unknown) => void;
}

/** Serves fault commands for one federation on a Unix socket; close() stops it and pending undos. */
export class FaultControlServer {
  readonly socketPath: string;
  readonly #server: Server;
  readonly #target: FaultTarget;
  readonly #onError: (err: unknown) => void;
  /** Pending undos by what they undo (a link's name, or the control plane). */
  readonly #undos = new Map<string, NodeJS.Timeout>();

  private constructor(socketPath: string, target: FaultTarget, opts: FaultControlOptions) {
    this.socketPath = socketPath;
    this.#target = target;
    this.#onError = opts.onError ?? (() => undefined);
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        reply(res, 400, { error: err instanceof Error ? err.message : String(err) });
      });
    });
  }

  static async start(
    socketPath: string,
    target: FaultTarget,
    opts: FaultControlOptions = {},
  ): Promise<FaultControlServer> {
    // A socket file left by an owner that was killed would refuse the bind.
    await rm(socketPath, { force: true });
    const control = new FaultControlServer(socketPath, target, opts);
    await new Promise<void>((resolve, reject) => {
      control.#server.once('error', reject);
      control.#server.listen(socketPath, () => {
        control.#server.off('error', reject);
        resolve();
      });
    });
    return control;
  }

  /** Carries a command out now (what a request to the socket does). */
  async apply(cmd: FaultCommand): Promise<void> {
    switch (cmd.op) {
      case 'cut':
      case 'blackhole':
      case 'delay':
        this.#breakLink(cmd);
        return;
      case 'restore':
        this.#restore(cmd.link);
        return;
      case 'kill-control-plane':
        this.#cancelUndo(CONTROL_PLANE);
        await this.#target.killControlPlane();
        if (cmd.forMs !== undefined) {
          this.#undoAfter(CONTROL_PLANE, cmd.forMs, () => this.#target.resumeControlPlane());
        }
        return;
      case 'resume-control-plane':
        this.#cancelUndo(CONTROL_PLANE);
        await this.#target.resumeControlPlane();
        return;
      case 'restart-agent':
        await this.#target.restartAgent(cmd.member);
        return;
    }
  }

  async close(): Promise<void> {
    for (const timer of this.#undos.values()) clearTimeout(timer);
    this.#undos.clear();
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
    await rm(this.socketPath, { force: true });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/links') {
      reply(res, 200, this.#target.links.states());
      return;
    }
    if (req.method === 'POST' && req.url === '/faults') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      await this.apply(parseFaultCommand(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      reply(res, 200, { ok: true });
      return;
    }
    reply(res, 404, { error: `no route ${req.method ?? ''} ${req.url ?? ''}` });
  }

  #breakLink(cmd: Extract<FaultCommand, { op: 'cut' | 'blackhole' | 'delay' }>): void {
    const link = this.#target.links.get(cmd.link);
    this.#cancelUndo(cmd.link);
    if (cmd.op === 'delay') link.delay(cmd.delayMs);
    else if (cmd.op === 'cut') link.cut();
    else link.blackhole();
    if (cmd.forMs !== undefined) {
      this.#undoAfter(cmd.link, cmd.forMs, () => {
        link.restore();
        return Promise.resolve();
      });
    }
  }

  #restore(name: string | undefined): void {
    const links = this.#target.links;
    if (name === undefined) {
      for (const n of links.names()) this.#cancelUndo(n);
      links.restoreAll();
      return;
    }
    const link = links.get(name);
    this.#cancelUndo(name);
    link.restore();
  }

  #undoAfter(key: string, ms: number, undo: () => Promise<void>): void {
    this.#undos.set(
      key,
      setTimeout(() => {
        this.#undos.delete(key);
        undo().catch(this.#onError);
      }, ms),
    );
  }

  #cancelUndo(key: string): void {
    clearTimeout(this.#undos.get(key));
    this.#undos.delete(key);
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** One request to a fault socket; rejects with the server's error message. */
function call(socketPath: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // A control-plane resume waits for its API server and /readyz: minutes on a busy machine.
    const req = request({ socketPath, method, path, timeout: 300_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
      });
      res.on('end', () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        if (res.statusCode === 200) resolve(parsed);
        else reject(new Error((parsed as { error?: string }).error ?? `HTTP ${res.statusCode ?? 0}`));
      });
    });
    req.on('timeout', () => {
      req.destroy(new Error(`no answer from ${socketPath}`));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'ENOENT' || err.code === 'ECONNREFUSED'
          ? new Error(`no federation serves faults at ${socketPath} (is \`failover-up --keep\` running?)`)
          : err,
      );
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Sends a command to the federation serving `socketPath`; resolves once it was carried out. */
export async function sendFaultCommand(socketPath: string, cmd: FaultCommand): Promise<void> {
  await call(socketPath, 'POST', '/faults', cmd);
}

/** The links of the federation serving `socketPath`, with what each does now. */
export async function listLinks(socketPath: string): Promise<LinkState[]> {
  return (await call(socketPath, 'GET', '/links')) as LinkState[];
}
