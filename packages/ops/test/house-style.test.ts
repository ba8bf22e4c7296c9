import { describe, expect, it } from "vitest";
import { opsVersion } from "../src/package-info.js";
import { runOps } from "./support/cli-run.js";

// t3-connector-ops in the house style of every CLI here (ADR 0030, docs/cli.md): a typo is two
// lines with the program's name, a suggestion and the help of the command it belongs to; a
// failure says which program failed; -v is --version.

const env = { T3_CONNECTOR_OPS_CONFIG: "/nonexistent/t3-connector-ops-house-style/ops.json" };

describe("t3-connector-ops answers like t3-connector", () => {
  it.each<[string[], string, string]>([
    [["lss"], "lss (did you mean ls?)", ""],
    [["environments", "mvoe"], "mvoe (did you mean move?)", " environments"],
    [["ls", "--jsno"], "--jsno (did you mean --json?)", " ls"],
    [["environments", "--json", "--config", "x.json", "mvoe"], "mvoe (did you mean move?)", " environments"],
  ])("%j: a suggestion, exit 64 and a pointer to that command's help", async (argv, problem, command) => {
    const run = await runOps(argv, { env });
    expect(run.code).toBe(64);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `t3-connector-ops: invalid_input: unknown command or argument: ${problem}\n` +
        `Run 't3-connector-ops${command} --help' for its usage.\n`,
    );
  });

  it("prefixes a failure with the program's name", async () => {
    const run = await runOps(["projects", "--env", "nowhere"], { env });
    expect(run.stderr).toMatch(/^t3-connector-ops: [a-z_]+: /);
  });

  it.each([["-v"], ["--version"]])("%s prints the version", async (flag) => {
    const run = await runOps([flag], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${opsVersion()}\n`);
  });
});
