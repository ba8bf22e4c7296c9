/**
 * The key a per-client request budget counts an address under (ADR 0044): an IPv4 address (an
 * IPv4-mapped IPv6 one folded to it) alone; an IPv6 address by its /64, since one host or site is
 * routinely handed a whole /64 and would otherwise draw a fresh budget from each of its 2^64
 * addresses. Anything that is not an address (a test's "local") is its own key.
 */
import { isIP } from "node:net";

export function budgetKeyOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  const bare = address.split("%")[0] ?? address;
  if (isIP(bare) !== 6) return address;
  return `${ipv6Groups(bare).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, `::` expanded, an IPv4 tail turned into two groups. */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail !== null) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const front = head === "" ? [] : head.split(":");
  const back = rest === undefined || rest === "" ? [] : rest.split(":");
  const zeros = rest === undefined ? [] : Array<string>(8 - front.length - back.length).fill("0");
  return [...front, ...zeros, ...back].map((group) => Number.parseInt(group, 16).toString(16));
}
