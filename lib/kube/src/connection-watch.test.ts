import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionWatch } from './connection-watch.ts';

/** A watch on a hand-moved clock, started on a stand-in for the agent's events. */
function watched(): {
  watch: ConnectionWatch;
  agent: EventEmitter;
  dead: string[];
  /** Moves the clock to `ms` and checks. */
  at: (ms: number) => void;
  /** Moves the clock only. */
  set: (ms: number) => void;
} {
  let now = 0;
  const dead: string[] = [];
  const watch = new ConnectionWatch(
    { pingIntervalMs: 1_000, connectTimeoutMs: 3_000 },
    (why) => dead.push(why),
    () => now,
  );
  const agent = new EventEmitter();
  watch.start(agent);
  started.push(watch);
  return {
    watch,
    agent,
    dead,
    at: (ms) => {
      now = ms;
      watch.check();
    },
    set: (ms) => {
      now = ms;
    },
  };
}

const started: ConnectionWatch[] = [];
afterEach(() => {
  for (const w of started.splice(0)) w.stop();
});

describe('ConnectionWatch', () => {
  it('gives up a connection that stops answering PINGs while a request is on it (a watch)', () => {
    const { watch, agent, dead, at, set } = watched();
    const req = {};
    watch.waiting(req);
    agent.emit('connect');
    watch.sent(req);
    watch.pinged(5);
    at(3_000);
    set(10_000);
    watch.pinged(5); // heard at 10 s: the request is quiet, the connection is not
    at(13_010); // three intervals and two 5 ms round trips
    expect(dead).toEqual([]);
    at(13_011);
    expect(dead).toEqual(['nothing heard from the server for 3011 ms, PINGs unanswered']);
    at(20_000);
    expect(dead).toHaveLength(1); // once
  });

  it('counts from the first request sent since anything was heard, even one that ended unanswered', () => {
    const { watch, agent, dead, at, set } = watched();
    agent.emit('connect');
    watch.pinged(0);
    set(1_000);
    const req = {};
    watch.waiting(req);
    watch.sent(req);
    at(2_000);
    watch.ended(req, true); // its deadline: nothing came back
    at(4_000);
    expect(dead).toEqual([]);
    at(4_001);
    expect(dead).toHaveLength(1);
  });

  it('does not give up an idle connection, nor one whose connections all closed', () => {
    const { watch, agent, dead, at } = watched();
    agent.emit('connect');
    watch.pinged(5);
    at(60_000); // nothing asked
    expect(dead).toEqual([]);
    const req = {};
    watch.waiting(req);
    watch.sent(req);
    watch.ended(req, true);
    agent.emit('disconnect');
    at(120_000);
    expect(dead).toEqual([]);
  });

  it('judges no silence before a PING was acknowledged (HTTP/1.1 only, no PINGs)', () => {
    const { watch, agent, dead, at } = watched();
    const req = {};
    watch.waiting(req);
    agent.emit('connect');
    watch.sent(req);
    at(60_000);
    expect(dead).toEqual([]);
  });

  it('gives up a request left waiting for a connection past the connect timeout and the limit', () => {
    const { watch, dead, at } = watched();
    watch.waiting({});
    at(6_000);
    expect(dead).toEqual([]);
    at(6_001);
    expect(dead).toEqual(['a request waited 6001 ms for a connection']);
  });

  it("allows a new connection's round trip, told by its handshake, twice more", () => {
    const { watch, agent, dead, at, set } = watched();
    watch.pinged(1); // an earlier connection answered PINGs at once
    const req = {};
    set(10_000);
    watch.waiting(req); // no connection: this one is being made
    set(12_000);
    agent.emit('connect'); // a 2 s handshake: a 1 s round trip
    watch.sent(req);
    at(17_000);
    expect(dead).toEqual([]);
    at(17_001);
    expect(dead).toHaveLength(1);
  });

  it('takes the latest round trip: a slow handshake does not widen the limit once PINGs come back fast', () => {
    const { watch, agent, dead, at, set } = watched();
    watch.pinged(1);
    const first = {};
    set(10_000);
    watch.waiting(first);
    set(15_000);
    agent.emit('connect'); // 5 s handshake over a slow link: 2.5 s round trip
    watch.sent(first);
    watch.ended(first, true);
    watch.heard();
    set(16_000);
    watch.pinged(0); // the link is fast again
    const req = {};
    watch.waiting(req);
    watch.sent(req);
    at(19_000);
    expect(dead).toEqual([]);
    at(19_001); // three intervals, not three intervals and two 2.5 s round trips
    expect(dead).toHaveLength(1);
  });
});
