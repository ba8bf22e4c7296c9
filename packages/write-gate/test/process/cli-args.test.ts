import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/process/cli-args.js";

describe("t3-connector-write command line", () => {
  it.each([
    [["--version"], { kind: "version" }],
    [[], { kind: "no-command" }],
    [["help"], { kind: "help", command: [], text: "" }],
    [["-h"], { kind: "help", command: [], text: expect.stringContaining("Usage: t3-connector-write") }],
    [
      ["help", "reconcile"],
      { kind: "help", command: ["reconcile"], text: expect.stringContaining("--all-uncertain") },
    ],
    [
      ["journal", "verify", "--help"],
      { kind: "help", command: ["journal", "verify"], text: expect.stringContaining("--json") },
    ],
    [
      ["environments", "add", "box", "--ssh", "box", "--remote-port=4000"],
      {
        kind: "environments-add",
        request: { alias: "box", transport: { ssh: "box:4000" } },
        warnings: ["--remote-port is deprecated: write --ssh box:4000"],
      },
    ],
    [["gate", "--log-level=debug"], { kind: "gate", logLevel: "debug" }],
    [
      ["environments", "add", "box", "--url=http://127.0.0.1:3773"],
      {
        kind: "environments-add",
        request: { alias: "box", transport: { url: "http://127.0.0.1:3773" } },
      },
    ],
    [["environments", "remove", "box"], { kind: "environments-remove", alias: "box" }],
    [["client-config", "codex"], { kind: "client-config", client: "codex" }],
    [["diagnose"], { kind: "diagnose" }],
    [["diagnose", "--projects"], { kind: "diagnose", projects: true }],
    [["pair", "--environment=alpha"], { kind: "pair", environment: "alpha" }],
    [
      ["reconcile", "--operation", "op-1"],
      { kind: "reconcile", operationId: "op-1", allUncertain: false, json: false, resend: false },
    ],
    [
      ["reconcile", "--operation", "op-1", "--resend"],
      { kind: "reconcile", operationId: "op-1", allUncertain: false, json: false, resend: true },
    ],
    [
      ["reconcile", "--all-uncertain", "--environment", "beta", "--json"],
      {
        kind: "reconcile",
        environment: "beta",
        allUncertain: true,
        json: true,
        resend: false,
      },
    ],
  ])("reads %j", (argv, expected) => {
    expect(parseCliArgs(argv)).toEqual(expected);
  });

  it.each([
    [["brigde"], "unknown command or argument: brigde (did you mean bridge?)"],
    [
      ["reconcile", "--all-uncertian"],
      "unknown command or argument: --all-uncertian (did you mean --all-uncertain?)",
    ],
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
