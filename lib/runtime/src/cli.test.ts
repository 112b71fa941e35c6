import { Command, CommanderError, InvalidArgumentError } from 'commander';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  boolFlag,
  collectProblems,
  durationFlag,
  envVarName,
  exitCodeFor,
  flag,
  formatDuration,
  parseBool,
  parseGoDuration,
  parseLogLevel,
  parsePositiveInt,
  parseRatio,
} from './cli.ts';
import { ConfigError } from './errors.ts';

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['-0', 0],
    ['+5s', 5_000],
    ['10s', 10_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1h', 3_600_000],
    ['2h45m', 9_900_000],
    ['2.5s', 2_500],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['1.s', 1_000],
    ['0s', 0],
    ['1us', 0],
    ['1µs', 0],
    ['1μs', 0],
    ['1500us', 2],
    ['1499us', 1],
    ['999999ns', 1],
    ['1h1m1s1ms1us1ns', 3_661_001],
    ['1m0.5s', 60_500],
  ])('parses %s as %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([
    ['', /empty/],
    ['-', /empty/],
    ['10', /missing unit/],
    ['1.5.5s', /missing unit/],
    ['s', /expected a number/],
    ['.s', /expected a number/],
    ['10 s', /unknown unit " s"/],
    ['10sec', /unknown unit "sec"/],
    ['1d', /unknown unit "d"/],
    ['-5s', /must not be negative/],
    ['1h-5m', /unknown unit "h-"/],
    ['3000000h', /too large/],
    ['700h', /too long: the maximum is 596h31m23.647s/],
    ['2147483648ms', /too long/],
  ])('refuses %j', (text, why) => {
    expect(() => parseGoDuration(text)).toThrow(why);
    expect(() => parseGoDuration(text)).toThrow(InvalidArgumentError);
  });

  it('accepts up to the largest delay a Node timer keeps, or a smaller maximum', () => {
    expect(parseGoDuration('596h31m23.647s')).toBe(2 ** 31 - 1);
    expect(parseGoDuration('1h', 3_600_000)).toBe(3_600_000);
    expect(() => parseGoDuration('61m', 3_600_000)).toThrow(
      'duration "61m" is too long: the maximum is 1h0m0s',
    );
  });

  it('names the input and gives examples in its error', () => {
    expect(() => parseGoDuration('ten')).toThrow(
      'invalid duration "ten": expected a number (examples: 500ms, 10s',
    );
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1.5, '1.5ms'],
    [0.001, '1µs'],
    [0.000001, '1ns'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [40_000, '40s'],
    [90_000, '1m30s'],
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
    [3_661_001, '1h1m1.001s'],
    [-2_000, '-2s'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through parseGoDuration for whole milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (ms) => {
        expect(parseGoDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });

  it('refuses non-finite input', () => {
    expect(() => formatDuration(Number.NaN)).toThrow(RangeError);
  });
});

describe('number and level parsers', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    [' 7 ', 7],
  ])('parsePositiveInt(%j) = %d', (text, n) => {
    expect(parsePositiveInt(text)).toBe(n);
  });

  it.each(['0', '-1', '1.5', 'abc', '', '1e3', '99999999999999999999'])(
    'parsePositiveInt refuses %j',
    (text) => {
      expect(() => parsePositiveInt(text)).toThrow(/is not a positive integer/);
    },
  );

  it.each([
    ['0', 0],
    ['1', 1],
    ['0.55', 0.55],
    ['.5', 0.5],
    ['1.0', 1],
  ])('parseRatio(%j) = %d', (text, r) => {
    expect(parseRatio(text)).toBe(r);
  });

  it.each(['1.01', '-0.1', 'half', '', 'NaN', 'Infinity', '1e-1'])('parseRatio refuses %j', (text) => {
    expect(() => parseRatio(text)).toThrow(/is not a ratio between 0 and 1/);
  });

  it('parses log levels case-insensitively and lists the valid ones on error', () => {
    expect(parseLogLevel('debug')).toBe('debug');
    expect(parseLogLevel('WARN')).toBe('warn');
    expect(parseLogLevel('silent')).toBe('silent');
    expect(() => parseLogLevel('verbose')).toThrow('one of trace, debug, info, warn, error, fatal, silent');
  });
});

describe('flag', () => {
  it('derives the environment variable from the long flag', () => {
    expect(envVarName('cluster-name')).toBe('KF_CLUSTER_NAME');
    expect(envVarName('--karmada-kubeconfig', 'KARMADA_')).toBe('KARMADA_KARMADA_KUBECONFIG');
    expect(flag('-n, --node-name <name>', 'node').envVar).toBe('KF_NODE_NAME');
    expect(flag('--lease-duration <d>', 'lease', 'X_').envVar).toBe('X_LEASE_DURATION');
    expect(() => flag('-n <name>', 'short only')).toThrow(/--long name/);
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  function program(): Command {
    return new Command('probe')
      .exitOverride()
      .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
      .addOption(flag('--node-name <name>', 'node this pod runs on'))
      .addOption(durationFlag('--detect-success-threshold <duration>', 'how long success must last', 30_000))
      .action(() => undefined);
  }

  function parse(argv: string[], env: Record<string, string> = {}): Record<string, unknown> {
    vi.stubEnv('KF_NODE_NAME', undefined);
    vi.stubEnv('KF_DETECT_SUCCESS_THRESHOLD', undefined);
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    return program().parse(argv, { from: 'user' }).opts();
  }

  it('prefers the flag over the environment over the default', () => {
    expect(parse([])).toEqual({ detectSuccessThreshold: 30_000 });
    expect(parse([], { KF_NODE_NAME: 'n1', KF_DETECT_SUCCESS_THRESHOLD: '1m' })).toEqual({
      nodeName: 'n1',
      detectSuccessThreshold: 60_000,
    });
    expect(
      parse(['--node-name', 'n2', '--detect-success-threshold', '5s'], {
        KF_NODE_NAME: 'n1',
        KF_DETECT_SUCCESS_THRESHOLD: '1m',
      }),
    ).toEqual({ nodeName: 'n2', detectSuccessThreshold: 5_000 });
  });

  it('shows Go-formatted duration defaults and env names in help', () => {
    const help = program().helpInformation();
    expect(help).toContain('(default: 30s, env: KF_DETECT_SUCCESS_THRESHOLD)');
    expect(help).toContain('(env: KF_NODE_NAME)');
  });

  it('reports a bad duration against its flag', () => {
    expect(() => parse(['--detect-success-threshold', '5 seconds'])).toThrow(
      /option '--detect-success-threshold <duration>' argument '5 seconds' is invalid/,
    );
  });

  it('refuses a duration above its maximum, saying what the maximum is', () => {
    expect(() => parse(['--detect-success-threshold', '700h'])).toThrow(
      /argument '700h' is invalid\. duration "700h" is too long: the maximum is 596h31m23\.647s/,
    );
    const capped = new Command('x')
      .exitOverride()
      .configureOutput({ writeErr: () => undefined })
      .addOption(durationFlag('--period <d>', 'period', 5_000, { maxMs: 3_600_000 }));
    expect(() => capped.parse(['--period', '2h'], { from: 'user' })).toThrow(/the maximum is 1h0m0s/);
    expect(capped.parse(['--period', '1h'], { from: 'user' }).opts()).toEqual({ period: 3_600_000 });
  });
});

describe('parseBool and boolFlag', () => {
  it.each([
    ['true', true],
    ['T', true],
    ['1', true],
    [' TRUE ', true],
    ['false', false],
    ['F', false],
    ['0', false],
  ])('parseBool(%j) = %s', (text, value) => {
    expect(parseBool(text)).toBe(value);
  });

  it.each(['yes', 'no', 'on', '', '2'])('parseBool refuses %j', (text) => {
    expect(() => parseBool(text)).toThrow(InvalidArgumentError);
    expect(() => parseBool(text)).toThrow(/is not a boolean \(true or false\)/);
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  function parse(argv: string[], env: Record<string, string> = {}): Record<string, unknown> {
    vi.stubEnv('KF_LEADER_ELECT', undefined);
    vi.stubEnv('KF_FAILOVER', undefined);
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    return program().parse(argv, { from: 'user' }).opts();
  }

  function program(): Command {
    return new Command('p')
      .exitOverride()
      .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
      .addOption(boolFlag('--leader-elect', 'elect a leader', true))
      .addOption(boolFlag('--failover', 'turn on failover', false))
      .action(() => undefined);
  }

  it('takes Go bool syntax: a bare flag is true, =value sets it, the environment backs it', () => {
    expect(parse([])).toEqual({ leaderElect: true, failover: false });
    expect(parse(['--failover', '--leader-elect=false'])).toEqual({ leaderElect: false, failover: true });
    expect(parse(['--failover', 'f'])).toEqual({ leaderElect: true, failover: false });
    expect(parse([], { KF_LEADER_ELECT: '0', KF_FAILOVER: 'true' })).toEqual({
      leaderElect: false,
      failover: true,
    });
    expect(parse(['--leader-elect'], { KF_LEADER_ELECT: 'false' })).toEqual({
      leaderElect: true,
      failover: false,
    });
  });

  it('shows [bool], the default and the variable in help, and refuses other words', () => {
    const help = program().helpInformation();
    expect(help).toMatch(
      /--leader-elect \[bool\] +elect a leader \(default: true, preset: "true", env:\s+KF_LEADER_ELECT\)/,
    );
    expect(help).toMatch(
      /--failover \[bool\] +turn on failover \(default: false, preset: "true", env:\s+KF_FAILOVER\)/,
    );
    expect(() => parse(['--failover=maybe'])).toThrow(
      /argument 'maybe' is invalid. "maybe" is not a boolean/,
    );
  });
});

describe('collectProblems', () => {
  it('returns the config deeply frozen when there is no problem', () => {
    const config = collectProblems((p) => ({
      leaseMs: p.parse('--lease-duration', '15s', parseGoDuration, 0),
      nested: { workers: p.parse('--workers', undefined, parsePositiveInt, 2) },
    }));
    expect(config).toEqual({ leaseMs: 15_000, nested: { workers: 2 } });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.nested)).toBe(true);
  });

  it('reports every problem at once in one ConfigError', () => {
    let thrown: unknown;
    try {
      collectProblems((p) => {
        const leaseMs = p.parse('--lease-duration', '15', parseGoDuration, 15_000);
        const renewMs = p.parse('--renew-deadline', '20s', parseGoDuration, 10_000);
        const workers = p.parse('--workers', 'zero', parsePositiveInt, 1);
        p.check(renewMs < leaseMs, '--renew-deadline must be shorter than --lease-duration');
        p.add('--karmada-kubeconfig is required');
        return { leaseMs, renewMs, workers };
      });
    } catch (err: unknown) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const problems = (thrown as ConfigError).problems;
    expect(problems).toEqual([
      '--lease-duration: invalid duration "15": missing unit (examples: 500ms, 10s, 1m30s, 2h)',
      '--workers: "zero" is not a positive integer',
      '--renew-deadline must be shorter than --lease-duration',
      '--karmada-kubeconfig is required',
    ]);
    expect((thrown as ConfigError).message).toContain('invalid configuration:\n  - --lease-duration');
  });
});

describe('exitCodeFor', () => {
  it.each([
    ['a configuration error', new ConfigError(['x']), 2],
    ['a usage error', new CommanderError(1, 'commander.unknownOption', 'unknown option'), 2],
    ['help', new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), 0],
    ['a runtime failure', new Error('watch failed'), 1],
    ['a thrown string', 'boom', 1],
  ])('maps %s to %d', (_name, err, code) => {
    expect(exitCodeFor(err)).toBe(code);
  });
});
