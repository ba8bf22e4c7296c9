import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";

describe("t3-connector command line", () => {
  it.each([
    [[], { kind: "serve", logLevel: "info" }],
    [["serve"], { kind: "serve", logLevel: "info" }],
    [["serve", "--log-level", "warn"], { kind: "serve", logLevel: "warn" }],
    [["--log-level=debug"], { kind: "serve", logLevel: "debug" }],
    [
      ["environments", "add", "mine", "--url", "http://127.0.0.1:3773", "--projects", "all"],
      {
        kind: "environments-add",
        request: { alias: "mine", transport: { url: "http://127.0.0.1:3773" }, projects: { all: true } },
      },
    ],
    [
      ["environments", "add", "box", "--ssh=build-box:4000", "--projects", "p1,p2"],
      {
        kind: "environments-add",
        request: { alias: "box", transport: { ssh: "build-box:4000" }, projects: { ids: ["p1", "p2"] } },
      },
    ],
    [["environments", "remove", "mine"], { kind: "environments-remove", alias: "mine" }],
    [["client-config", "claude-desktop"], { kind: "client-config", client: "claude-desktop" }],
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
    [["serve", "--log-level", "loud"], "--log-level takes one of error, warn, info, debug"],
    [["environments", "add", "mine"], "exactly one of --url URL or --ssh HOST[:PORT]"],
    [["environments", "add", "mine", "--url", "https://a", "--ssh", "b"], "exactly one of"],
    [["environments", "add", "--url", "https://a"], "needs an alias"],
    [["environments", "remove"], "needs an alias"],
    [["client-config"], "client-config needs a client"],
  ])("refuses %j as a usage error", (argv, problem) => {
    const parsed = parseCliArgs(argv);
    expect(parsed.kind).toBe("usage-error");
    expect(parsed.kind === "usage-error" ? parsed.problem : "").toContain(problem);
  });
});
