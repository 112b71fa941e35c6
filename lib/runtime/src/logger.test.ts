import { describe, expect, it } from 'vitest';
import { createLogger, lazyChild } from './logger.ts';

function sink(): { lines: () => Record<string, unknown>[]; write: (msg: string) => void } {
  const chunks: string[] = [];
  return {
    write: (msg) => void chunks.push(msg),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  it('writes one JSON line with component, ISO time and level name', () => {
    const out = sink();
    createLogger({ component: 'agent', destination: out }).info({ cluster: 'member1' }, 'lease renewed');
    const [line] = out.lines();
    expect(line).toMatchObject({
      component: 'agent',
      level: 'info',
      cluster: 'member1',
      msg: 'lease renewed',
    });
    expect(String(line?.['time'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('honours the level option', () => {
    const out = sink();
    const log = createLogger({ component: 'probe', level: 'warn', destination: out });
    log.info('dropped');
    log.warn('kept');
    expect(out.lines().map((l) => l['msg'])).toEqual(['kept']);
    expect(createLogger({ component: 'probe', destination: out }).level).toBe('info');
  });

  it('redacts tokens, passwords, authorization headers, client keys and kubeconfigs', () => {
    const out = sink();
    const secret = 's3cr3t-value';
    createLogger({ component: 'agent', destination: out }).info(
      {
        token: secret,
        kubeconfig: secret,
        user: { token: secret, password: secret, 'client-key-data': secret, name: 'admin' },
        headers: { authorization: secret, Authorization: secret, accept: 'application/json' },
        req: { headers: { authorization: secret } },
        options: { kubeconfig: secret, Authorization: secret },
      },
      'connecting',
    );
    const raw = JSON.stringify(out.lines());
    expect(raw).not.toContain(secret);
    const [line] = out.lines();
    expect(line).toMatchObject({
      token: '[Redacted]',
      user: { name: 'admin', 'client-key-data': '[Redacted]' },
      headers: { accept: 'application/json' },
    });
  });

  it('serializes errors under err with message and stack', () => {
    const out = sink();
    createLogger({ component: 'agent', destination: out }).warn({ err: new Error('boom') }, 'retrying');
    expect(out.lines()[0]?.['err']).toMatchObject({ type: 'Error', message: 'boom' });
  });
});

describe('lazyChild', () => {
  it('makes the child once, at its first use, and logs with its bindings', () => {
    const out = sink();
    const parent = createLogger({ component: 'test', destination: out });
    let made = 0;
    const log = lazyChild(parent, () => {
      made++;
      return { key: 'ns/a' };
    });
    expect(made).toBe(0);
    log.info({ n: 1 }, 'first');
    const { warn } = log; // a method read off it stays bound to the child
    warn('second');
    log.child({ step: 'inner' }).info('third');
    expect(made).toBe(1);
    expect(out.lines().map((l) => [l['msg'], l['key'], l['n'], l['step']])).toEqual([
      ['first', 'ns/a', 1, undefined],
      ['second', 'ns/a', undefined, undefined],
      ['third', 'ns/a', undefined, 'inner'],
    ]);
  });

  it('answers level checks as its parent would and redacts its bindings', () => {
    const out = sink();
    const parent = createLogger({ component: 'test', level: 'info', destination: out });
    const log = lazyChild(parent, () => ({ token: 'secret' }));
    expect(log.isLevelEnabled('debug')).toBe(false);
    expect(log.isLevelEnabled('info')).toBe(true);
    log.debug('dropped');
    log.info('kept');
    expect(out.lines().map((l) => [l['msg'], l['token']])).toEqual([['kept', '[Redacted]']]);
  });
});
