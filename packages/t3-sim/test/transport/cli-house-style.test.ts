import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";

// t3-sim in the house style of every CLI here (ADR 0030, docs/cli.md): a typo is two lines on
// stderr with a suggestion and where the help is, exit 64, never the whole usage.

function capture() {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: { stdout: (text: string) => (out.stdout += text), stderr: (text: string) => (out.stderr += text) },
  };
}

describe("t3-sim answers like t3-connector", () => {
  it.each<[string[], string, string]>([
    [["serv"], "serv (did you mean serve?)", ""],
    [["serve", "--seeed", "demo"], "--seeed (did you mean --seed?)", " serve"],
  ])("%j: a suggestion, exit 64 and a pointer to the help", async (argv, problem, command) => {
    const { out, io } = capture();
    expect(await main(argv, io)).toBe(64);
    expect(out.stdout).toBe("");
    expect(out.stderr).toBe(
      `t3-sim: invalid_input: unknown command or argument: ${problem}\nRun 't3-sim${command} --help' for its usage.\n`,
    );
  });

  it.each([["-v"], ["--version"]])("%s prints the version", async (flag) => {
    const { out, io } = capture();
    expect(await main([flag], io)).toBe(0);
    expect(out.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
