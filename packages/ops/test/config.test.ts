import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isConnectorError } from "@t3-connector/core";
import { EXIT_CODES } from "@t3-connector/core/cli-support";
import { writeTokenFile } from "@t3-connector/core/config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadOpsConfig, parseOpsConfig } from "../src/config.js";
import { runOps } from "./support/cli-run.js";
import { type SimOps, startSimOps } from "./support/sim-ops.js";

const base = { environmentId: "env-1", url: "https://t3.example", tokenFile: "/tokens/a" };

function problems(raw: unknown): string[] {
  try {
    parseOpsConfig(raw, { path: "ops.json", homeDir: "/home/u" });
  } catch (error) {
    if (isConnectorError(error, "config_invalid")) return error.details?.problems as string[];
    throw error;
  }
  return [];
}

describe("ops config", () => {
  it("accepts url or ssh entries with extra aliases and expands ~ in tokenFile", () => {
    const config = parseOpsConfig(
      {
        environments: {
          mac: { ...base, aliases: ["laptop"], tokenFile: "~/.t3/mac.token" },
          box: { environmentId: "env-2", ssh: { host: "box.local" }, tokenFile: "/t/b" },
        },
      },
      { path: "ops.json", homeDir: "/home/u" },
    );
    expect(config.environments[0]).toMatchObject({
      alias: "mac",
      aliases: ["laptop"],
      tokenFile: "/home/u/.t3/mac.token",
      insecureHttp: false,
    });
    expect(config.environments[1]?.transport).toEqual({ kind: "ssh", host: "box.local", remotePort: 3773 });
  });

  it("refuses unknown keys, relative token files, both url and ssh, and an alias used twice", () => {
    expect(problems({ environments: { a: { ...base, token: "x" } } })).toContain(
      "environments.a.token: unknown key",
    );
    expect(problems({ environments: { a: { ...base, tokenFile: "rel/t" } } })[0]).toContain("absolute path");
    expect(problems({ environments: { a: { ...base, ssh: { host: "h" } } } })[0]).toContain(
      "exactly one of url or ssh",
    );
    expect(
      problems({
        environments: { a: { ...base, aliases: ["b"] }, b: { ...base, environmentId: "env-2" } },
      })[0],
    ).toContain('"b" already names environment');
    expect(problems({ environments: { a: base, b: { ...base } } })[0]).toContain(
      "duplicates the environmentId",
    );
  });

  it("allows plain http to another host only with insecureHttp", () => {
    const remote = { ...base, url: "http://box.tailnet:3773" };
    expect(problems({ environments: { a: remote } })[0]).toContain("plain http is only allowed on loopback");
    const config = parseOpsConfig(
      { environments: { a: { ...remote, insecureHttp: true } } },
      { path: "ops.json", homeDir: "/home/u" },
    );
    expect(config.environments[0]?.transport).toEqual({ kind: "url", url: "http://box.tailnet:3773" });
    expect(
      problems({ environments: { a: { ...remote, url: "http://u:p@box:1", insecureHttp: true } } })[0],
    ).toContain("credentials");
  });

  it("reads T3_CONNECTOR_OPS_ENVIRONMENTS before the file, and reports a missing file", async () => {
    const inline = JSON.stringify({ environments: { a: base } });
    const config = await loadOpsConfig({
      env: { T3_CONNECTOR_OPS_ENVIRONMENTS: inline },
      homeDir: "/home/u",
    });
    expect(config.path).toBe("$T3_CONNECTOR_OPS_ENVIRONMENTS");
    await expect(
      loadOpsConfig({ env: { T3_CONNECTOR_OPS_CONFIG: "/nonexistent/ops.json" } }),
    ).rejects.toMatchObject({
      code: "config_not_found",
    });
  });
});

describe("token files and scopes", () => {
  let setup: SimOps;
  let dir: string;
  beforeEach(async () => {
    setup = await startSimOps({ environments: [{ alias: "alpha" }] });
    dir = await mkdtemp(path.join(os.tmpdir(), "t3-ops-token-"));
  });
  afterEach(async () => {
    await setup.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function configWith(tokenFile: string): Promise<Record<string, string>> {
    const alpha = setup.env("alpha");
    const inline = JSON.stringify({
      environments: { alpha: { environmentId: alpha.environmentId, url: alpha.url, tokenFile } },
    });
    return { T3_CONNECTOR_OPS_ENVIRONMENTS: inline };
  }

  it("refuses a token file others can read (exit 78) before anything is read from T3", async () => {
    const tokenFile = path.join(dir, "tokens", "alpha.token");
    await writeTokenFile(tokenFile, setup.env("alpha").operateToken);
    await chmod(tokenFile, 0o644);
    const run = await runOps(["alpha", "query", "projects"], { env: await configWith(tokenFile) });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toMatch(/^t3-connector-ops: token_file_invalid: /);
  });

  it("refuses a read-only token: ops needs exactly read and operate", async () => {
    const tokenFile = path.join(dir, "tokens", "alpha.token");
    await writeTokenFile(tokenFile, setup.env("alpha").readToken);
    const run = await runOps(["alpha", "query", "projects"], { env: await configWith(tokenFile) });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toMatch(/^t3-connector-ops: scope_mismatch: /);
  });

  it("refuses a config file that is not JSON with config_invalid", async () => {
    const file = path.join(dir, "ops.json");
    await writeFile(file, "{ nope");
    const run = await runOps(["ls"], { env: { T3_CONNECTOR_OPS_CONFIG: file } });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toMatch(/^t3-connector-ops: config_invalid: /);
  });
});
