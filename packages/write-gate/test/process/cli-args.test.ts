import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/process/cli-args.js";

describe("t3-connector-write command line", () => {
  it.each([
    [["--version"], { kind: "version" }],
    [["help"], { kind: "help" }],
    [["-h"], { kind: "help" }],
    [["gate", "--log-level=debug"], { kind: "gate", logLevel: "debug" }],
    [
      ["environments", "add", "box", "--url=http://127.0.0.1:3773"],
      {
        kind: "environments-add",
        alias: "box",
        transport: { url: "http://127.0.0.1:3773" },
      },
    ],
    [["environments", "remove", "box"], { kind: "environments-remove", alias: "box" }],
    [["client-config", "codex"], { kind: "client-config", client: "codex" }],
    [["diagnose"], { kind: "diagnose", projects: false }],
    [["diagnose", "--projects"], { kind: "diagnose", projects: true }],
    [["pair", "--environment=alpha"], { kind: "pair", environment: "alpha" }],
    [
      ["reconcile", "--operation", "op-1"],
      { kind: "reconcile", operationId: "op-1", allUncertain: false, json: false },
    ],
    [
      ["reconcile", "--all-uncertain", "--environment", "beta", "--json"],
      {
        kind: "reconcile",
        environment: "beta",
        allUncertain: true,
        json: true,
      },
    ],
  ])("reads %j", (argv, expected) => {
    expect(parseCliArgs(argv)).toEqual(expected);
  });

  it.each([
    [[], "a command is required"],
    [["--version", "x"], "unknown command or argument: x"],
    [["frobnicate"], "unknown command or argument: frobnicate"],
    [["gate", "x"], "unknown command or argument: x"],
    [["gate", "--log-level", "loud"], "--log-level takes one of"],
    [["environments"], "environments add <alias>"],
    [["environments", "add"], "environments add needs an alias"],
    [["client-config"], "client-config needs a client"],
    [["pair"], "pair needs --environment X"],
    [["pair", "--environment"], "--environment needs a value"],
    [["pair", "--environment", "a", "--environment", "b"], "--environment given twice"],
    [["reconcile"], "reconcile needs --operation ID or --all-uncertain"],
    [["reconcile", "--operation", "a", "--all-uncertain"], "exclude each other"],
    [["reconcile", "--all-uncertain", "--force"], "unknown command or argument: --force"],
  ])("refuses %j as a usage error", (argv, problem) => {
    const parsed = parseCliArgs(argv);
    expect(parsed.kind).toBe("usage-error");
    expect(parsed.kind === "usage-error" ? parsed.problem : "").toContain(problem);
  });
});
