import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli.js";

const packageVersion = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
    },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

describe("t3-connector arguments", () => {
  it("prints the package.json version for --version", async () => {
    const run = capture();
    expect(await runCli(["--version"], run.io)).toBe(0);
    expect(run.stdout()).toBe(`${packageVersion}\n`);
    expect(run.stderr()).toBe("");
  });

  it("prints usage on stdout for --help", async () => {
    const run = capture();
    expect(await runCli(["--help"], run.io)).toBe(0);
    expect(run.stdout()).toContain("Usage: t3-connector");
    expect(run.stdout()).toContain("serve");
  });

  it.each([["bogus"], ["--verbose"], ["serve", "--now"], ["--version", "extra"]])(
    "names the problem and where the help is on stderr, exit 64, for %s",
    async (...argv: string[]) => {
      const run = capture();
      expect(await runCli(argv, run.io)).toBe(64);
      expect(run.stdout()).toBe("");
      expect(run.stderr()).toContain("unknown command or argument");
      expect(run.stderr()).toMatch(/Run 't3-connector( serve)? --help' for its usage\.\n$/);
      expect(run.stderr().split("\n")).toHaveLength(3);
    },
  );
});
