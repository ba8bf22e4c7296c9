import { describe, expect, it } from "vitest";
import {
  ConnectorError,
  ERROR_CODES,
  ERROR_CODES_BY_DOMAIN,
  type ErrorDomain,
  errorDomainOf,
  isConnectorError,
} from "../../src/errors.js";

// One error type, one table of codes per domain (core/src/errors.ts): each code sits in exactly
// one domain, ERROR_CODES is their union, and a code names its domain.

describe("error codes grouped by domain", () => {
  const domains = Object.keys(ERROR_CODES_BY_DOMAIN) as ErrorDomain[];

  it("lists each code in exactly one domain, and ERROR_CODES is every domain's codes", () => {
    const all = domains.flatMap((domain) => [...ERROR_CODES_BY_DOMAIN[domain]]);
    const repeated = all.filter((code, index) => all.indexOf(code) !== index);
    expect(repeated, `in two domains: ${repeated.join(", ")}`).toEqual([]);
    expect([...ERROR_CODES].sort()).toEqual([...all].sort());
  });

  it("names codes in snake_case, and no domain is empty", () => {
    for (const domain of domains) expect(ERROR_CODES_BY_DOMAIN[domain].length).toBeGreaterThan(0);
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it.each<[Parameters<typeof errorDomainOf>[0], ErrorDomain]>([
    ["config_not_found", "configuration"],
    ["environment_unknown", "environments"],
    ["thread_not_found", "t3"],
    ["lease_closed", "writes"],
  ])("%s is a code of %s, carried by the one error type", (code, domain) => {
    expect(errorDomainOf(code)).toBe(domain);
    const error = new ConnectorError(code, "a message");
    expect(isConnectorError(error, code)).toBe(true);
    expect(error.toString()).toBe(`${code}: a message`);
  });
});
