import { describe, expect, it } from 'vitest';
import { AllowHostsError, parseAllowHosts } from './allow-hosts.js';
import { isPublicAddress, nonPublicRange } from './public-address.js';

describe('parseAllowHosts', () => {
  it('admits the names, addresses and ranges of the setting, and nothing else', () => {
    const allow = parseAllowHosts('127.0.0.1, localhost,10.0.0.0/8,[::1],Receiver.Internal.,fd00::/8,');
    expect(allow.entries).toEqual(['127.0.0.1', 'localhost', '10.0.0.0/8', '::1', 'receiver.internal', 'fd00::/8']);
    expect(allow.admits('localhost', '127.0.0.5')).toBe(true);
    expect(allow.admits('RECEIVER.internal')).toBe(true);
    expect(allow.admits('127.0.0.1')).toBe(true);
    expect(allow.admits('[::1]')).toBe(true);
    expect(allow.admits('hooks.example', '10.20.30.40')).toBe(true);
    expect(allow.admits('hooks.example', '::ffff:10.1.2.3')).toBe(true);
    expect(allow.admits('hooks.example', 'fd12::1')).toBe(true);
    expect(allow.admits('hooks.example', '127.0.0.2')).toBe(false);
    expect(allow.admits('hooks.example', '192.168.1.1')).toBe(false);
    expect(allow.admits('sub.localhost', '192.168.1.1')).toBe(false);
    expect(allow.admits('169.254.169.254')).toBe(false);
  });

  it('is empty for an unset or blank setting', () => {
    expect(parseAllowHosts(undefined).admits('localhost', '127.0.0.1')).toBe(false);
    expect(parseAllowHosts(' ').entries).toEqual([]);
  });

  it('reads a mapped IPv4 range written in IPv6 as the IPv4 range', () => {
    expect(parseAllowHosts('::ffff:10.0.0.0/104').admits('x', '10.9.9.9')).toBe(true);
  });

  it.each(['10.0.0.0/33', '10.0.0.0/x', 'fd00::/129', 'http://hooks.example', 'a b', 'under/score', '-bad.example', '300.1.1.1/8'])(
    'refuses the bad entry %s with an error naming it',
    (entry) => {
      expect(() => parseAllowHosts(`127.0.0.1,${entry}`)).toThrow(AllowHostsError);
      expect(() => parseAllowHosts(`127.0.0.1,${entry}`)).toThrow(JSON.stringify(entry));
    },
  );
});

describe('public addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::7f00:1', 'reserved'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
  ])('%s is not public (%s)', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
