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

  it("takes a passkey id that starts with '-' as the id, before or after --force", () => {
    // Passkey ids are base64url: one in 64 starts with "-", and is printed so by `oauth passkeys`.
    const removal = { kind: "oauth", action: "remove-passkey", id: "-Vd3kq", force: false };
    expect(parseCliArgs(["oauth", "remove-passkey", "-Vd3kq"])).toEqual(removal);
    expect(parseCliArgs(["oauth", "remove-passkey", "--force", "-Vd3kq"])).toEqual({
      ...removal,
      force: true,
    });
    expect(parseCliArgs(["oauth", "remove-passkey", "-Vd3kq", "--force"])).toEqual({
      ...removal,
      force: true,
    });
    expect(parseCliArgs(["oauth", "remove-passkey", "--", "-Vd3kq"])).toEqual(removal);
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

  it("enrolls with a fresh code, lists passkeys, and removes the last one only with --force", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-oauth-passkeys-"));
    dirs.push(dir);
    const stateDir = path.join(dir, "state");
    const configPath = path.join(dir, "config.json");
    await writeFile(
      configPath,
      JSON.stringify({ environments: {}, oauth: { issuer: "https://mcp.example.com", stateDir } }),
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
    const enrolled = await run(["oauth", "enroll"]);
    expect(enrolled.code).toBe(0);
    const issued = JSON.parse(enrolled.stdout) as { code: string; expiresAt: string; next: string };
    expect(issued.code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    // The real page's URL, from the config's issuer.
    expect(issued.next).toContain("open the approval page (https://mcp.example.com/approve)");
    expect(issued.next).not.toContain("<issuer>");
    // Only the code's hash is kept, never the code.
    const kept = await readFile(path.join(stateDir, "enrollment-code.json"), "utf8");
    expect(kept).not.toContain(issued.code);

    const credential = (id: string, name?: string) => ({
      id,
      publicKey: "cHVibGlj",
      counter: 0,
      createdAt: "2026-12-06T08:00:00.000Z",
      ...(name === undefined ? {} : { name }),
    });
    await writeFile(
      path.join(stateDir, "passkeys.json"),
      JSON.stringify({
        version: 1,
        credentials: [credential("laptop-key"), credential("phone-key", "Phone")],
      }),
      { mode: 0o600 },
    );
    expect(JSON.parse((await run(["oauth", "passkeys"])).stdout)).toEqual({
      passkeys: [
        { id: "laptop-key", name: null, createdAt: "2026-12-06T08:00:00.000Z", transports: [] },
        { id: "phone-key", name: "Phone", createdAt: "2026-12-06T08:00:00.000Z", transports: [] },
      ],
    });
    expect((await run(["oauth", "remove-passkey", "nope"])).stderr).toContain("credential_unknown");
    expect(JSON.parse((await run(["oauth", "remove-passkey", "laptop-key"])).stdout)).toEqual({
      removed: ["laptop-key"],
      remaining: 1,
    });
    const last = await run(["oauth", "remove-passkey", "phone-key"]);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain("this is the last passkey");
    expect(JSON.parse((await run(["oauth", "passkeys"])).stdout).passkeys).toHaveLength(1);
    const forced = await run(["oauth", "remove-passkey", "phone-key", "--force"]);
    expect(JSON.parse(forced.stdout)).toEqual({ removed: ["phone-key"], remaining: 0 });
    expect(JSON.parse((await run(["oauth", "passkeys"])).stdout)).toEqual({ passkeys: [] });
  });
});
