import ipaddr from 'ipaddr.js';
import { parseAddress } from './allow-hosts.js';

/*
 * Which addresses a notification may reach without the operator's leave: public unicast only.
 * Refused: private (RFC 1918), loopback, link-local (169.254.0.0/16, which holds the cloud
 * metadata address 169.254.169.254, and fe80::/10), unique-local (fc00::/7), carrier-grade NAT
 * (100.64.0.0/10), unspecified, broadcast, multicast, reserved, documentation and benchmarking
 * ranges, IPv4-mapped IPv6 addresses of any of those, and every IPv6 address outside the global
 * unicast block 2000::/3 or inside one of its translation ranges (6to4, Teredo, NAT64), which can
 * carry an internal IPv4 address.
 */

const GLOBAL_UNICAST_V6: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

/** The range name that makes `address` non-public (`loopback`, `private`, ...), or null when it is public unicast. Throws nothing: a text that is no address answers `invalid`. */
export function nonPublicRange(address: string): string | null {
  const parsed = parseAddress(address);
  if (!parsed) return 'invalid';
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'reserved';
  return null;
}

/** Whether `address` is a public unicast address (see the file comment). */
export function isPublicAddress(address: string): boolean {
  return nonPublicRange(address) === null;
}
