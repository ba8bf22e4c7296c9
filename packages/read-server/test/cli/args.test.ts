import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { bareServe } from "../../src/cli/bare-serve.js";

describe("bare `serve`, read without the parser", () => {
  it("is the command the parser reads from the same line", () => {
    expect(bareServe(["serve"])).toEqual(parseCliArgs(["serve"]));
  });

  it.each([
    [[]],
    [["serve", "--http"]],
    [["serve", "--log-level", "debug"]],
    [["serve", "serve"]],
    [["serv"]],
    [["--version"]],
    [["ambientes"]],
  ])("leaves %j to the parser", (argv) => {
    expect(bareServe(argv)).toBeUndefined();
  });
});

describe("t3-connector command line", () => {
  it.each([
    [[], { kind: "no-command" }],
    [["serve"], { kind: "serve", logLevel: "info" }],
    [["serve", "--log-level", "warn"], { kind: "serve", logLevel: "warn" }],
    [["serve", "--log-level=debug"], { kind: "serve", logLevel: "debug" }],
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
    [["diagnose", "--projects"], { kind: "diagnose", projects: true }],
    [["pair", "--environment", "server"], { kind: "pair", environment: "server" }],
    [["--version"], { kind: "version" }],
    [["-h"], { kind: "help", command: [], text: expect.stringContaining("Usage: t3-connector") }],
    [["help"], { kind: "help", command: [], text: "" }],
    [
      ["help", "environments", "add"],
      {
        kind: "help",
        command: ["environments", "add"],
        text: expect.stringContaining("--ssh <host[:port]>"),
      },
    ],
    [
      ["serve", "--help"],
      { kind: "help", command: ["serve"], text: expect.stringContaining("--allowed-host") },
    ],
    [
      ["environments", "add", "box", "--ssh", "build-box", "--remote-port", "4000"],
      {
        kind: "environments-add",
        request: { alias: "box", transport: { ssh: "build-box:4000" } },
        warnings: ["--remote-port is deprecated: write --ssh build-box:4000"],
      },
    ],
  ])("reads %j", (argv, expected) => {
    expect(parseCliArgs(argv)).toEqual(expected);
  });

  it.each([
    [["pair"], "--environment"],
    [["pair", "--environment"], "needs a value"],
    [["diagnose", "--environment", "a", "--environment", "b"], "given twice"],
    [["environments", "extra"], "unknown command or argument: extra"],
    [["frobnicate"], "unknown command or argument: frobnicate"],
    [["--log-level=debug"], "unknown command or argument: --log-level=debug"],
    [["environmnts"], "unknown command or argument: environmnts (did you mean environments?)"],
    [["serve", "--htp"], "unknown command or argument: --htp (did you mean --http?)"],
    [["events", "stauts"], "unknown command or argument: stauts (did you mean status?)"],
    [["help", "sevre"], "unknown command or argument: sevre (did you mean serve?)"],
    [["environments", "add", "b", "--ssh", "h:22", "--remote-port", "4000"], "give the port once"],
    [["environments", "add", "b", "--url", "https://a", "--remote-port", "4000"], "goes with --ssh"],
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
