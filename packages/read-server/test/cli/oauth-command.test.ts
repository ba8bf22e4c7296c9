import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { runCli } from "../../src/cli.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("serve --http --oauth and the oauth command", () => {
  it("parses --oauth with --issuer, and refuses --issuer alone or beside a token file", () => {
    expect(parseCliArgs(["serve", "--http", "--oauth", "--issuer", "https://mcp.example.com"])).toMatchObject(
      {
        kind: "serve",
        http: { oauth: { issuer: "https://mcp.example.com" } },
      },
    );
    expect(parseCliArgs(["serve", "--http", "--issuer", "https://x.example"]).kind).toBe("usage-error");
    expect(parseCliArgs(["serve", "--http", "--oauth", "--auth-token-file", "f"]).kind).toBe("usage-error");
    expect(parseCliArgs(["serve", "--oauth"]).kind).toBe("usage-error");
    expect(parseCliArgs(["oauth", "revoke", "s_1"])).toEqual({ kind: "oauth", action: "revoke", id: "s_1" });
  });

  it("lists no sessions, refuses an unknown id, and revokes all in the section's state directory", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-oauth-cli-"));
    dirs.push(dir);
    const stateDir = path.join(dir, "state");
    const configPath = path.join(dir, "config.json");
    await writeFile(
      configPath,
      JSON.stringify({
        environments: {
          alpha: {
            environmentId: "env-a",
            url: "http://127.0.0.1:9",
            tokenFile: path.join(dir, "t"),
            allowedProjects: ["p"],
          },
        },
        oauth: { issuer: "https://mcp.example.com", stateDir },
      }),
      { mode: 0o600 },
    );
    const run = async (argv: string[]) => {
      let stdout = "";
      let stderr = "";
      const code = await runCli(argv, {
        stdout: {
          write: (text: string) => {
            stdout += text;
          },
        },
        stderr: {
          write: (text: string) => {
            stderr += text;
          },
        },
        env: { T3_CONNECTOR_CONFIG: configPath },
      });
      return { code, stdout, stderr };
    };
    const listed = await run(["oauth", "sessions"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({ sessions: [] });
    const unknown = await run(["oauth", "revoke", "s_nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("session_unknown");
    const all = await run(["oauth", "revoke-all"]);
    expect(all.code).toBe(0);
    const revocations = JSON.parse(await readFile(path.join(stateDir, "revocations.json"), "utf8"));
    expect(revocations.revokedBefore).toEqual(expect.any(Number));
  });
});
