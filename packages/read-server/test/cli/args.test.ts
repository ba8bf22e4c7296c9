import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";

describe("t3-connector command line", () => {
  it.each([
    [[], { kind: "serve" }],
    [["serve"], { kind: "serve" }],
    [["environments"], { kind: "environments" }],
    [["ambientes"], { kind: "environments" }],
    [["diagnose"], { kind: "diagnose" }],
    [["diagnostico", "--ambiente", "laptop"], { kind: "diagnose", environment: "laptop" }],
    [["diagnose", "--environment=laptop"], { kind: "diagnose", environment: "laptop" }],
    [["pair", "--environment", "server"], { kind: "pair", environment: "server" }],
    [["--version"], { kind: "version" }],
    [["-h"], { kind: "help" }],
  ])("reads %j", (argv, expected) => {
    expect(parseCliArgs(argv)).toEqual(expected);
  });

  it.each([
    [["pair"], "--environment"],
    [["pair", "--environment"], "needs a value"],
    [["diagnose", "--environment", "a", "--environment", "b"], "given twice"],
    [["diagnose", "--projects"], "unknown command or argument: --projects"],
    [["environments", "extra"], "unknown command or argument: extra"],
    [["frobnicate"], "unknown command or argument: frobnicate"],
  ])("refuses %j as a usage error", (argv, problem) => {
    const parsed = parseCliArgs(argv);
    expect(parsed.kind).toBe("usage-error");
    expect(parsed.kind === "usage-error" ? parsed.problem : "").toContain(problem);
  });
});
