/** Which key a per-client budget counts an address under (ADR 0044): IPv4 alone, IPv6 by its /64. */
import { describe, expect, it } from "vitest";
import { budgetKeyOf } from "../../src/http-edge/index.js";

describe("budgetKeyOf", () => {
  it("keeps an IPv4 address as it is, and folds an IPv4-mapped one to it", () => {
    expect(budgetKeyOf("198.51.100.7")).toBe("198.51.100.7");
    expect(budgetKeyOf("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(budgetKeyOf("::FFFF:127.0.0.1")).toBe("127.0.0.1");
  });

  it("counts every address of one IPv6 /64 as one client, however it is spelled", () => {
    const one = [
      "2001:db8:1:2::1",
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
      "2001:0DB8:0001:0002:0:0:0:9",
      "2001:db8:1:2:aa:bb:1.2.3.4",
      "2001:db8:1:2::7%eth0",
    ];
    expect(new Set(one.map(budgetKeyOf))).toEqual(new Set(["2001:db8:1:2::/64"]));
    expect(budgetKeyOf("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(budgetKeyOf("::1")).toBe("0:0:0:0::/64");
    expect(budgetKeyOf("fe80::1")).toBe("fe80:0:0:0::/64");
  });

  it("leaves anything that is not an address as its own key", () => {
    expect(budgetKeyOf("local")).toBe("local");
    expect(budgetKeyOf("unknown")).toBe("unknown");
  });
});
