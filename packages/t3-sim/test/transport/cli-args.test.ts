import { describe, expect, it } from "vitest";
import { parseArgs, serveEnvironments } from "../../src/cli-args.js";

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

  it("reads --compat and --web-build / --no-web-build for all or per environment", () => {
    expect(parseArgs(["serve", "--compat", "0.0.31", "--no-web-build"])).toEqual({
      command: "serve",
      environments: 1,
      seed: "demo",
      compat: { all: "0.0.31" },
      webBuild: { all: false },
    });
    const mixed = parseArgs([
      "serve",
      "--environments",
      "3",
      "--compat",
      "beta=0.0.31",
      "--compat",
      "gamma=0.0.31",
      "--no-web-build",
      "gamma",
      "--web-build",
      "alpha",
    ]);
    expect(mixed).toEqual({
      command: "serve",
      environments: 3,
      seed: "demo",
      compat: { byAlias: { beta: "0.0.31", gamma: "0.0.31" } },
      webBuild: { byAlias: { gamma: false, alpha: true } },
    });
    if (mixed.command !== "serve") throw new Error("serve expected");
    expect(serveEnvironments(mixed)).toEqual([
      { alias: "alpha", seed: "demo", webBuild: true },
      { alias: "beta", seed: "demo", compat: "0.0.31" },
      { alias: "gamma", seed: "demo", compat: "0.0.31", webBuild: false },
    ]);
  });

  it("reads --profile-report and hands its profile to every environment", () => {
    const args = parseArgs(["serve", "--environments", "2", "--profile-report", "/tmp/report.json"]);
    expect(args).toEqual({
      command: "serve",
      environments: 2,
      seed: "demo",
      profileReport: "/tmp/report.json",
    });
    if (args.command !== "serve") throw new Error("not serve");
    const profile = { serverVersion: "0.0.46", unknowns: { projectsRoute: "absent" as const } };
    expect(
      serveEnvironments(args, profile).map((env) => [env.alias, env.serverVersion, env.unknowns]),
    ).toEqual([
      ["alpha", "0.0.46", { projectsRoute: "absent" }],
      ["beta", "0.0.46", { projectsRoute: "absent" }],
    ]);
  });

  it("refuses an unknown compat profile and an alias that is not served", () => {
    for (const argv of [
      ["serve", "--compat", "0.0.30"],
      ["serve", "--compat", "beta=0.0.31"],
      ["serve", "--environments", "2", "--no-web-build", "gamma"],
      ["serve", "--compat"],
    ]) {
      expect(parseArgs(argv).command, argv.join(" ")).toBe("error");
    }
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
