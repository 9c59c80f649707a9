import ipaddr from 'ipaddr.js';

/*
 * The operator's list of internal hosts that notifications may reach (STRATBOX_NOTIFY_ALLOW_HOSTS):
 * host names, IP addresses and CIDR ranges, comma-separated. Everything not on it must be a
 * public unicast address (see public-address.ts) for the guarded HTTP client to connect to it,
 * and plain `http:` is allowed only to hosts on it.
 */

/** Which internal hosts and addresses the operator admits. */
export interface AllowHosts {
  /**
   * Whether the operator admits a request to `hostname` (as in a URL: lower-case, IPv6 in
   * brackets or not) connecting to `address` (an IP address, when known): true when the name is
   * on the list, or when the address (or the hostname, if it is an IP literal) is on it or in one
   * of its ranges. IPv4-mapped IPv6 addresses are matched as their IPv4 address.
   */
  admits(hostname: string, address?: string): boolean;
  /** The entries as given, normalised (for logs and docs; holds no secret). */
  readonly entries: readonly string[];
}

/** A bad entry in the allow setting: thrown at start-up, naming the entry and what it should look like. */
export class AllowHostsError extends Error {
  override readonly name = 'AllowHostsError';
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(
      `STRATBOX_NOTIFY_ALLOW_HOSTS: ${JSON.stringify(entry)} ${reason}; give host names, IP addresses or CIDR ranges, comma-separated (e.g. "127.0.0.1,localhost,10.0.0.0/8,[::1]")`,
    );
  }
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const HOST_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** The address `text` names (brackets stripped, IPv4-mapped IPv6 made IPv4), or null when it is not an IP address. */
export function parseAddress(text: string): Address | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  // `isValid` also takes the odd IPv4 forms (`0x7f.1`, `2130706433`): parse them the same way a socket would.
  const address = ipaddr.parse(bare);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) return (address as ipaddr.IPv6).toIPv4Address();
  return address;
}

/** `hostname` as a URL gives it, lower-case, without a trailing dot or IPv6 brackets. */
export function normaliseHost(hostname: string): string {
  const lower = hostname.trim().toLowerCase().replace(/\.$/, '');
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}

function isHostName(name: string): boolean {
  return name.length <= 253 && name.split('.').every((label) => HOST_LABEL.test(label));
}

/**
 * Parses the allow setting: a comma-separated string (empty entries are skipped) or a list.
 * Throws an `AllowHostsError` for an entry that is neither a host name, an IP address nor a
 * CIDR range (e.g. `10.0.0.0/33`, `http://x`, `a b`).
 */
export function parseAllowHosts(setting: string | readonly string[] | undefined | null): AllowHosts {
  const raw = setting == null ? [] : typeof setting === 'string' ? setting.split(',') : [...setting];
  const names = new Set<string>();
  const ranges: Array<[Address, number]> = [];
  const entries: string[] = [];
  for (const item of raw) {
    const entry = item.trim();
    if (entry === '') continue;
    const slash = entry.indexOf('/');
    if (slash >= 0) {
      const baseText = entry.slice(0, slash);
      const base = parseAddress(baseText);
      const bitsText = entry.slice(slash + 1);
      if (!base) throw new AllowHostsError(entry, 'is not a CIDR range: the part before "/" is not an IP address');
      const writtenAsIpv6 = baseText.includes(':');
      // A mapped IPv4 base keeps its IPv4 meaning: ::ffff:10.0.0.0/104 is 10.0.0.0/8.
      const offset = writtenAsIpv6 && base.kind() === 'ipv4' ? 96 : 0;
      const max = writtenAsIpv6 ? 128 : 32;
      const bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
      if (!(bits >= offset && bits <= max)) throw new AllowHostsError(entry, `is not a CIDR range: the prefix length must be ${offset} to ${max}`);
      ranges.push([base, bits - offset]);
      entries.push(`${base.toString()}/${bits - offset}`);
      continue;
    }
    const address = parseAddress(entry);
    if (address) {
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      entries.push(address.toString());
      continue;
    }
    const name = normaliseHost(entry);
    if (!isHostName(name)) throw new AllowHostsError(entry, 'is not a host name, an IP address or a CIDR range');
    names.add(name);
    entries.push(name);
  }

  const addressAdmitted = (text: string): boolean => {
    const address = parseAddress(text);
    if (!address) return false;
    return ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
  };

  return {
    entries,
    admits(hostname, address) {
      const host = normaliseHost(hostname);
      if (names.has(host)) return true;
      if (addressAdmitted(host)) return true;
      return address !== undefined && addressAdmitted(address);
    },
  };
}
