import { describe, expect, it } from "vitest";
import { clientAddressOf, trustedProxySet } from "../../src/http/client-address.js";

const trusted = trustedProxySet(["127.0.0.1", "10.0.0.2"]);
const from = (peer: string, headers: Record<string, string>) =>
  clientAddressOf(peer, new Headers(headers), trusted);

describe("the client address behind a trusted proxy (ADR 0044)", () => {
  it("is the peer when nothing was forwarded", () => {
    expect(from("::ffff:198.51.100.7", {})).toEqual({ address: "198.51.100.7", untrustedForwarding: false });
  });

  it("ignores a forwarding header from a peer that is not trusted, and says so", () => {
    expect(from("198.51.100.7", { "x-forwarded-for": "203.0.113.1" })).toEqual({
      address: "198.51.100.7",
      untrustedForwarding: true,
    });
  });

  it("takes the rightmost hop that is not one of the operator's proxies", () => {
    const hops = { "x-forwarded-for": "1.1.1.1, 203.0.113.9, 10.0.0.2" };
    expect(from("::ffff:127.0.0.1", hops).address).toBe("203.0.113.9");
  });

  it("reads Forwarded: for= when there is no X-Forwarded-For, brackets and ports removed", () => {
    const forwarded = { forwarded: 'for=1.1.1.1;proto=https, for="[2001:DB8::1]:4711"' };
    expect(from("127.0.0.1", forwarded).address).toBe("2001:db8::1");
  });

  it("falls back to the peer when the proxy's hop is not an address", () => {
    expect(from("127.0.0.1", { "x-forwarded-for": "1.1.1.1, unknown" }).address).toBe("127.0.0.1");
    expect(from("127.0.0.1", { forwarded: "for=_hidden" }).address).toBe("127.0.0.1");
  });

  it("takes the leftmost hop when every hop is a trusted proxy", () => {
    expect(from("127.0.0.1", { "x-forwarded-for": "10.0.0.2, 127.0.0.1" }).address).toBe("10.0.0.2");
  });
});
