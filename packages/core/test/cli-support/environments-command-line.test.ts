import { describe, expect, it } from "vitest";
import {
  defineEnvironmentsCommandLine,
  type EnvironmentsCliCommand,
  type EnvironmentsOwner,
  parseCommandLine,
} from "../../src/cli-support/index.js";

// The environments words of the three CLIs, declared once (environments-command-line.ts): each
// owner's parse of the same words gives the same command, and what only one file takes is refused
// by the others as an unknown flag.

function parse(owner: EnvironmentsOwner, argv: readonly string[]) {
  return parseCommandLine<EnvironmentsCliCommand>(
    argv,
    (program, found, warn) =>
      defineEnvironmentsCommandLine(program, (command) => found(command), { owner, warn }),
    { name: `cli-${owner}` },
  );
}

const OWNERS: readonly EnvironmentsOwner[] = ["read", "write", "ops"];

describe("the environments command line, declared once", () => {
  it.each([
    [["environments", "add", "box", "--url", "https://box.example:3773"]],
    [["environments", "add", "box", "--ssh", "box", "--token-file", "/t", "--environment-id", "env-1"]],
    [["environments", "move", "box", "--ssh", "box:4000"]],
    [["environments", "remove", "box"]],
    [["diagnose", "--environment", "box", "--projects"]],
    [["diagnose"]],
    [["pair", "--environment=box"]],
  ])("%j parses to the same command in the three CLIs", (argv) => {
    const [read, write, ops] = OWNERS.map((owner) => parse(owner, argv));
    expect(read?.kind, JSON.stringify(read)).toBe("parsed");
    expect(write).toEqual(read);
    expect(ops).toEqual(read);
  });

  it("reads an add with every flag into one request", () => {
    expect(
      parse("read", [
        "environments",
        "add",
        "box",
        "--ssh",
        "box",
        "--remote-port",
        "4000",
        "--projects",
        "p1,p2",
        "--also",
        "write",
      ]),
    ).toEqual({
      kind: "parsed",
      value: {
        kind: "environments-add",
        request: {
          alias: "box",
          transport: { ssh: "box:4000" },
          projects: { ids: ["p1", "p2"] },
          also: ["write"],
        },
      },
      warnings: ["--remote-port is deprecated: write --ssh box:4000"],
    });
    expect(
      parse("ops", [
        "environments",
        "add",
        "box",
        "--url",
        "http://box:3773",
        "--alias",
        "a",
        "--alias",
        "b",
        "--insecure-http",
      ]),
    ).toMatchObject({
      value: {
        request: {
          alias: "box",
          transport: { url: "http://box:3773" },
          aliases: ["a", "b"],
          insecureHttp: true,
        },
      },
    });
  });

  it.each([
    ["write", ["environments", "add", "box", "--url", "https://b", "--projects", "all"], "--projects"],
    ["ops", ["pair", "--environment", "box", "--also", "write"], "--also"],
    ["read", ["environments", "add", "box", "--url", "https://b", "--insecure-http"], "--insecure-http"],
    ["write", ["diagnostico"], "diagnostico"],
  ] as const)("%s refuses %j: what another file takes is unknown here", (owner, argv, word) => {
    expect(parse(owner, argv)).toMatchObject({
      kind: "problem",
      problem: expect.stringContaining(`unknown command or argument: ${word}`),
    });
  });

  it("lists in the read and ops CLIs only; write.json has no listing", () => {
    expect(parse("read", ["environments"])).toMatchObject({ value: { kind: "environments" } });
    expect(parse("ops", ["environments", "list"])).toMatchObject({ value: { kind: "environments" } });
    expect(parse("write", ["environments"])).toMatchObject({
      kind: "problem",
      problem: expect.stringContaining("environments add <alias>"),
    });
  });

  it.each(OWNERS)(
    "%s refuses an add with no alias and a pair with no environment, naming what is missing",
    (owner) => {
      expect(parse(owner, ["environments", "add", "--url", "https://b"])).toMatchObject({
        problem: expect.stringContaining("environments add needs an alias"),
      });
      expect(parse(owner, ["pair"])).toMatchObject({
        problem: expect.stringContaining("pair needs --environment X"),
      });
      expect(parse(owner, ["pair", "--environment", "a", "--environment", "b"])).toMatchObject({
        problem: expect.stringContaining("--environment given twice"),
      });
    },
  );
});
