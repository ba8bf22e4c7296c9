import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli-args.js";

describe("t3-sim arguments", () => {
  it("defaults to one demo environment on a free port", () => {
    expect(parseArgs(["serve"])).toEqual({ command: "serve", environments: 1, seed: "demo" });
  });

  it("reads every option", () => {
    expect(
      parseArgs([
        "serve",
        "--port",
        "4100",
        "--environments",
        "3",
        "--seed",
        "empty",
        "--config-out",
        "/tmp/x",
      ]),
    ).toEqual({ command: "serve", port: 4100, environments: 3, seed: "empty", configOut: "/tmp/x" });
  });

  it("asks for help with --help, -h or no arguments", () => {
    for (const argv of [["--help"], ["serve", "-h"], []])
      expect(parseArgs(argv)).toEqual({ command: "help" });
  });

  it("reads --version alone as the version command", () => {
    expect(parseArgs(["--version"])).toEqual({ command: "version" });
    expect(parseArgs(["serve", "--version"]).command).toBe("error");
  });

  it("refuses bad values and unknown options", () => {
    for (const argv of [
      ["serve", "--port", "0"],
      ["serve", "--port", "abc"],
      ["serve", "--environments", "0"],
      ["serve", "--environments", "27"],
      ["serve", "--seed", "full"],
      ["serve", "--port"],
      ["serve", "--bogus", "1"],
      ["start"],
      ["serve", "--port", "65535", "--environments", "2"],
    ]) {
      expect(parseArgs(argv).command, argv.join(" ")).toBe("error");
    }
  });
});
