import { describe, expect, it } from 'vitest';
import { ConfigError, ShutdownTimeoutError, TerminalError } from './errors.ts';

describe('errors', () => {
  it('TerminalError is an Error with its own name and keeps the cause', () => {
    const cause = new Error('422');
    const err = new TerminalError('spec.replicas must not be negative', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('TerminalError');
    expect(err.cause).toBe(cause);
  });

  it.each([
    [[], 'invalid configuration'],
    [['--workers must be positive'], 'invalid configuration: --workers must be positive'],
    [['a', 'b'], 'invalid configuration:\n  - a\n  - b'],
  ])('ConfigError(%j) says %j', (problems, message) => {
    const err = new ConfigError(problems);
    expect(err.message).toBe(message);
    expect(err.name).toBe('ConfigError');
    expect(err.problems).toEqual(problems);
  });

  it('ConfigError keeps its own frozen copy of the problems', () => {
    const problems = ['a'];
    const err = new ConfigError(problems);
    problems.push('b');
    expect(err.problems).toEqual(['a']);
    expect(Object.isFrozen(err.problems)).toBe(true);
  });

  it('ShutdownTimeoutError names what is still running', () => {
    const err = new ShutdownTimeoutError(['cluster-health', 'http'], 30_000);
    expect(err.pending).toEqual(['cluster-health', 'http']);
    expect(err.message).toBe(
      'graceful shutdown did not finish within 30000 ms; still running: cluster-health, http',
    );
  });
});
