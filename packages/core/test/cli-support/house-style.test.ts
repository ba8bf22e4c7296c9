import { describe, expect, it } from "vitest";
import {
  answerCommandLine,
  commandOf,
  EXIT_CODES,
  exitCodeOf,
  parseCommandLine,
  suggestionFor,
  transportFromOptions,
  usageErrorText,
} from "../../src/cli-support/index.js";
import { ConnectorError } from "../../src/errors.js";

type Found = { kind: "run" | "status" };

function parse(argv: readonly string[]) {
  return parseCommandLine<Found>(
    argv,
    (program, found) => {
      program
        .command("run")
        .description("run it")
        .option("--verbose", "say more")
        .action(() => found({ kind: "run" }));
      const events = program.command("events").description("events");
      events
        .command("status")
        .description("the outbox")
        .action(() => found({ kind: "status" }));
    },
    { name: "tool", versionFlags: ["--version"] },
  );
}

describe("suggestions", () => {
  it.each([
    ["environmnts", ["environments", "diagnose"], "environments"],
    ["--htp", ["--http", "--host"], "--http"],
    ["stauts", ["status", "retry"], "status"],
    ["env", ["environments", "events"], "environments"],
    ["frobnicate", ["serve", "diagnose"], undefined],
    ["x", ["serve"], undefined],
  ])("%s among %j suggests %s", (typed, known, expected) => {
    expect(suggestionFor(typed, known)).toBe(expected);
  });
});

describe("parseCommandLine's house style", () => {
  it("answers none for no arguments, the command's own help for X --help and help X", () => {
    expect(parse([])).toEqual({ kind: "none" });
    const asFlag = parse(["events", "status", "--help"]);
    const asCommand = parse(["help", "events", "status"]);
    expect(asFlag).toMatchObject({ kind: "help", command: ["events", "status"] });
    expect(asFlag.kind === "help" ? asFlag.text : "").toContain("Usage: tool events status");
    expect(asCommand).toEqual(asFlag);
    expect(parse(["help"])).toEqual({ kind: "help", command: [], text: "" });
  });

  it("names the nearest command or flag and the command the problem belongs to", () => {
    expect(parse(["rnu"])).toEqual({
      kind: "problem",
      problem: "unknown command or argument: rnu (did you mean run?)",
      command: [],
    });
    expect(parse(["run", "--verbos"])).toEqual({
      kind: "problem",
      problem: "unknown command or argument: --verbos (did you mean --verbose?)",
      command: ["run"],
    });
    expect(parse(["events", "stat"])).toMatchObject({
      problem: expect.stringContaining("did you mean status?"),
    });
  });

  it("prints a usage problem as two lines and exits 64", () => {
    let stderr = "";
    const io = { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } };
    const command = commandOf(parse(["run", "--verbos"]));
    if (command.kind !== "usage-error") throw new Error("expected a usage error");
    const context = { cli: "tool", usage: "Usage: tool\n", version: () => "1.0.0", serverCommand: "run" };
    expect(answerCommandLine(command, io, context)).toBe(EXIT_CODES.usage);
    expect(stderr).toBe(usageErrorText("tool", command.problem, ["run"]));
    expect(stderr).toBe(
      "tool: invalid_input: unknown command or argument: --verbos (did you mean --verbose?)\nRun 'tool run --help' for its usage.\n",
    );
  });

  it("helps on no arguments at a terminal, and names the server command otherwise", () => {
    const output = { stdout: "", stderr: "" };
    const io = (stdinIsTTY: boolean) => ({
      stdout: { write: (text: string) => (output.stdout += text) },
      stderr: { write: (text: string) => (output.stderr += text) },
      stdinIsTTY,
    });
    const context = { cli: "tool", usage: "Usage: tool\n", version: () => "1.0.0", serverCommand: "run" };
    expect(answerCommandLine({ kind: "no-command" }, io(true), context)).toBe(0);
    expect(output).toEqual({ stdout: "Usage: tool\n", stderr: "" });
    expect(answerCommandLine({ kind: "no-command" }, io(false), context)).toBe(64);
    expect(output.stdout).toBe("Usage: tool\n");
    expect(output.stderr).toContain("an MCP client runs 'tool run'");
  });
});

describe("the shared exit codes and --ssh", () => {
  it("maps an error by its code, anything else to 1", () => {
    expect(exitCodeOf(new ConnectorError("invalid_input", "x"))).toBe(64);
    expect(exitCodeOf(new ConnectorError("config_not_found", "x"))).toBe(78);
    expect(exitCodeOf(new ConnectorError("unauthorized", "x"))).toBe(69);
    expect(exitCodeOf(new Error("boom"))).toBe(1);
  });

  it("reads --remote-port as the port of --ssh, with a warning giving the one spelling", () => {
    const warnings: string[] = [];
    expect(transportFromOptions({ ssh: "box", remotePort: "4000" }, (w) => warnings.push(w))).toEqual({
      ssh: "box:4000",
    });
    expect(warnings).toEqual(["--remote-port is deprecated: write --ssh box:4000"]);
    expect(() => transportFromOptions({ ssh: "box:22", remotePort: "4000" })).toThrow("give the port once");
    expect(() => transportFromOptions({ ssh: "box", remotePort: "x" })).toThrow("takes a port number");
  });
});
