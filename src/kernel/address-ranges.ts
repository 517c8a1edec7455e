/**
 * Lists of IP addresses and CIDR ranges (GATEWAY_TRUSTED_PROXIES): `127.0.0.1, 10.0.0.0/8, ::1, fd00::/8`. One
 * parser, which the configuration uses to refuse a bad list at start and the gateway uses to build the matcher
 * (Node's `net.BlockList`, which also matches an IPv4-mapped IPv6 address against an IPv4 range).
 */
import { BlockList, isIP } from "node:net";

export type AddressRangesResult = { ok: true; ranges: string[] } | { ok: false; message: string };

/** A bare address without brackets, zone or IPv4-mapped prefix, or undefined when it is not an IP address. */
export function plainAddress(text: string | undefined): string | undefined {
  if (!text) return undefined;
  let plain = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(plain);
  if (bracketed) plain = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(plain)) plain = plain.slice(0, plain.lastIndexOf(":"));
  plain = plain.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped) plain = mapped[1]!;
  return isIP(plain) ? plain : undefined;
}

/** Parses a comma-separated list of addresses and `address/prefix` ranges; says which entry is wrong, and why. */
export function parseAddressRanges(text: string): AddressRangesResult {
  const ranges: string[] = [];
  for (const entry of text.split(",").map((part) => part.trim()).filter((part) => part !== "")) {
    const [head = "", prefix, ...rest] = entry.split("/");
    const address = isIP(head) ? plainAddress(head) : undefined; // no brackets, port or zone here
    const family = address ? isIP(address) : 0;
    if (!address || rest.length > 0) return { ok: false, message: `"${entry}" is not an IP address or CIDR range (e.g. 127.0.0.1, 10.0.0.0/8, ::1, fd00::/8)` };
    if (prefix === undefined) {
      ranges.push(address);
      continue;
    }
    const bits = family === 4 ? 32 : 128;
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return { ok: false, message: `"${entry}": the prefix length must be 0 to ${bits}` };
    ranges.push(`${address}/${Number(prefix)}`);
  }
  return { ok: true, ranges };
}

/** Whether an address lies in one of these ranges (as parseAddressRanges returns them). */
export function createAddressMatcher(ranges: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const range of ranges) {
    const [address = "", prefix] = range.split("/");
    const family = isIP(address) === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    const plain = plainAddress(address);
    return plain !== undefined && list.check(plain, isIP(plain) === 4 ? "ipv4" : "ipv6");
  };
}
