import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { isSameBindAddress, parseBindAddress } from './bind-address.ts';

describe('parseBindAddress', () => {
  it.each([
    [':8080', { port: 8080 }],
    [':0', { port: 0 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['0.0.0.0:80', { host: '0.0.0.0', port: 80 }],
    ['localhost:1', { host: 'localhost', port: 1 }],
    ['[::1]:9090', { host: '::1', port: 9090 }],
    ['[::]:9090', { host: '::', port: 9090 }],
    [' :65535 ', { port: 65_535 }],
    ['0', undefined],
    ['', undefined],
  ])('parseBindAddress(%j)', (text, expected) => {
    expect(parseBindAddress(text)).toEqual(expected);
  });

  it.each(['8080', ':', 'host:', ':99999', ':65536', 'a:b', '::1:80', 'a]b:80', '[::1]'])(
    'refuses %j',
    (text) => {
      expect(() => parseBindAddress(text)).toThrow(InvalidArgumentError);
      expect(() => parseBindAddress(text)).toThrow(
        `"${text}" is not an address like :8080 or 127.0.0.1:8080 (0 disables)`,
      );
    },
  );
});

describe('isSameBindAddress', () => {
  it.each([
    [':8080 and :8080', { port: 8080 }, { port: 8080 }, true],
    ['the same host and port', { host: '::1', port: 9 }, { host: '::1', port: 9 }, true],
    ['other ports', { port: 8080 }, { port: 8081 }, false],
    ['every interface and one host', { port: 8080 }, { host: '127.0.0.1', port: 8080 }, false],
    ['two requests for a free port', { port: 0 }, { port: 0 }, false],
  ])('%s', (_name, a, b, expected) => {
    expect(isSameBindAddress(a, b)).toBe(expected);
    expect(isSameBindAddress(b, a)).toBe(expected);
  });
});
