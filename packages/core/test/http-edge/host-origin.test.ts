import { describe, expect, it } from "vitest";
import { checkHost, checkHostOrigin, checkOrigin, edgeNames } from "../../src/http-edge/index.js";

// The one Host/Origin check, as a rebinding page, a proxy and a sandboxed page would address it.
const names = edgeNames(
  ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "mcp.example.com"],
  ["http://localhost:8000", "https://chatgpt.com"],
);
const headers = (values: Record<string, string>) => new Headers(values);

describe("checkHost", () => {
  it.each([
    ["the listed name with its port", "localhost:8000"],
    ["an IPv6 loopback literal with its port", "[::1]:8000"],
    ["a name in upper case (hosts are case-insensitive)", "LOCALHOST:8000"],
    ["a listed name without a port, as a proxy on 443 sends it", "mcp.example.com"],
  ])("accepts %s", (_what, host) => {
    expect(checkHost(headers({ host }), names)).toEqual({ ok: true });
  });

  it.each([
    ["a DNS-rebound name on our port", "evil.example:8000"],
    ["a listed name on another port", "localhost:9999"],
    ["a listed name without its port", "localhost"],
    ["an IPv6 literal without its port", "[::1]"],
    ["the same IPv6 address written long", "[0:0:0:0:0:0:0:1]:8000"],
    ["a trailing dot", "localhost.:8000"],
    ["a name that only starts like a listed one", "localhost:8000.evil.example"],
    ["userinfo before the name", "user@localhost:8000"],
    ["an empty Host", ""],
  ])("refuses %s, naming what it saw", (_what, host) => {
    expect(checkHost(headers({ host }), names)).toEqual({
      ok: false,
      header: "Host",
      seen: host.toLowerCase(),
    });
  });

  it("refuses a request with no Host at all", () => {
    expect(checkHost(headers({}), names)).toEqual({ ok: false, header: "Host", seen: null });
  });
});

describe("checkOrigin", () => {
  it("optional: no Origin passes (clients outside a browser), a listed one passes, any other is refused", () => {
    expect(checkOrigin(headers({}), names, "optional").ok).toBe(true);
    expect(checkOrigin(headers({ origin: "https://ChatGPT.com" }), names, "optional").ok).toBe(true);
    expect(checkOrigin(headers({ origin: "https://chatgpt.com.evil.example" }), names, "optional")).toEqual({
      ok: false,
      header: "Origin",
      seen: "https://chatgpt.com.evil.example",
    });
  });

  it("refuses `Origin: null` (a sandboxed frame, a file, a redirect) under every rule", () => {
    for (const rule of ["optional", "required", "forbidden"] as const) {
      expect(checkOrigin(headers({ origin: "null" }), names, rule)).toEqual({
        ok: false,
        header: "Origin",
        seen: "null",
      });
    }
  });

  it("required: a missing Origin is refused; forbidden: even a listed Origin is refused", () => {
    expect(checkOrigin(headers({}), names, "required")).toEqual({ ok: false, header: "Origin", seen: null });
    expect(checkOrigin(headers({ origin: "http://localhost:8000" }), names, "forbidden").ok).toBe(false);
    expect(checkOrigin(headers({}), names, "forbidden").ok).toBe(true);
  });

  it("refuses two Origins sent at once, and an origin with a path or a trailing slash", () => {
    const twice = new Headers();
    twice.append("origin", "https://chatgpt.com");
    twice.append("origin", "https://evil.example");
    expect(checkOrigin(twice, names, "optional").ok).toBe(false);
    expect(checkOrigin(headers({ origin: "https://chatgpt.com/" }), names, "optional").ok).toBe(false);
  });
});

describe("checkHostOrigin", () => {
  it("checks Host first: a rebound name is refused even with a listed Origin", () => {
    expect(
      checkHostOrigin(headers({ host: "evil.example:8000", origin: "http://localhost:8000" }), names),
    ).toEqual({ ok: false, header: "Host", seen: "evil.example:8000" });
    expect(
      checkHostOrigin(headers({ host: "localhost:8000", origin: "http://evil.example" }), names),
    ).toEqual({ ok: false, header: "Origin", seen: "http://evil.example" });
    expect(checkHostOrigin(headers({ host: "localhost:8000" }), names)).toEqual({ ok: true });
  });
});
