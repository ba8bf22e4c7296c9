/**
 * `t3_diff` and `t3_worktree` against a real T3 server, by hand (`pnpm test:real`,
 * docs/testing-against-real-t3.md): not part of `pnpm test`. The server must run agent turns,
 * e.g. 0.0.31 started with the scripted Codex (`T3REAL_FAKE_CODEX=1`, whose `EDIT <path> <text>`
 * appends a line to a file). The test makes a git repository (branch `main`) in
 * T3_REAL_WORKSPACE (default the OS temp dir, which the server must be able to write), a project
 * on it and a thread whose run edits a file; then reads them with the read token only.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { T3RpcClient } from "@t3-connector/core/t3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReadContext } from "../../src/read-context.js";
import { startRealReadServer } from "./real-read-server.js";

const URL_ = process.env.T3_REAL_URL ?? "";
const READ_TOKEN = process.env.T3_REAL_READ_TOKEN_FILE
  ? readFileSync(process.env.T3_REAL_READ_TOKEN_FILE, "utf8").trim()
  : "";
const OPERATE_TOKEN = process.env.T3_REAL_OPERATE_TOKEN_FILE
  ? readFileSync(process.env.T3_REAL_OPERATE_TOKEN_FILE, "utf8").trim()
  : "";
const WORKSPACE = process.env.T3_REAL_WORKSPACE ?? os.tmpdir();
const EDITED_LINE = `hello from the real test ${Date.now()}`;

let dir: string;
let repo: string;
let context: ReadContext;
let client: Client;
let threadId: string;
let providerReady = false;

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
  if (result.isError) throw new Error(`${name}: ${text}`);
  return result.structuredContent as Record<string, unknown>;
}

beforeAll(async () => {
  if (!URL_ || !READ_TOKEN || !OPERATE_TOKEN)
    throw new Error("set T3_REAL_URL, T3_REAL_READ_TOKEN_FILE and T3_REAL_OPERATE_TOKEN_FILE");
  dir = mkdtempSync(path.join(os.tmpdir(), "t3-real-diffs-"));
  repo = path.join(WORKSPACE, `t3-real-diffs-${Date.now()}`);
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      ["-c", "user.name=real-test", "-c", "user.email=real-test@example.invalid", ...args],
      {
        cwd: repo,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "notes.txt"), "first line\n");
  git("add", ".");
  git("commit", "-q", "-m", "init");

  const operate = await T3RpcClient.connect({ baseUrl: URL_, token: OPERATE_TOKEN });
  try {
    const config = await operate.getConfig();
    const codex = (
      config.providers as Array<{ instanceId?: string; status?: string; models?: Array<{ slug: string }> }>
    ).find((provider) => provider.instanceId === "codex");
    providerReady = codex?.status === "ready" && (codex.models?.length ?? 0) > 0;
    const projectId = randomUUID();
    const created = await fetch(`${URL_}/api/projects/mutate`, {
      method: "POST",
      headers: { authorization: `Bearer ${OPERATE_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        type: "project.create",
        commandId: randomUUID(),
        projectId,
        title: "real-t3 diffs",
        workspaceRoot: repo,
      }),
    });
    expect(created.ok).toBe(true);
    const launched = await operate.launchThread({
      commandId: randomUUID(),
      creationSource: "mcp",
      projectId,
      title: `real-t3 diffs: ${new Date().toISOString()}`,
      modelSelection: { instanceId: "codex", model: codex?.models?.[0]?.slug ?? "gpt-5.6-sol" },
      runtimeMode: "full-access",
      interactionMode: "default",
      workspaceStrategy: { type: "root" },
      initialMessage: { text: `EDIT notes.txt ${EDITED_LINE}`, attachments: [] },
    });
    threadId = launched.threadId;
    ({ context, client } = await startRealReadServer({
      url: URL_,
      readToken: READ_TOKEN,
      dir,
      acl: { allowedProjects: [projectId] },
      clientName: "real-diffs",
    }));
  } finally {
    operate.close();
  }
}, 60_000);

afterAll(async () => {
  await client?.close();
  context?.registry.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (repo) rmSync(repo, { recursive: true, force: true });
});

describe("diffs and worktrees on a real T3", () => {
  it("shows the file a run edited in t3_diff, once the run has ended", async (test) => {
    if (!providerReady)
      test.skip(
        "this T3 has no ready Codex provider, so no run can edit a file (start it with T3REAL_FAKE_CODEX=1)",
      );
    // Event-driven waits (t3_aguardar_thread returns on the run's end), each at most 5 s.
    let waited: Record<string, unknown> = {};
    for (let round = 0; round < 24 && waited.terminal !== true; round += 1) {
      waited = await call("t3_aguardar_thread", { environment: "real", threadId, timeoutMs: 5000 });
    }
    expect(waited).toMatchObject({ terminal: true });
    const thread = await call("t3_thread", { environment: "real", threadId });
    expect(thread.changes).toMatchObject({ files: 1, additions: 1, deletions: 0 });
    const diff = await call("t3_diff", { environment: "real", threadId });
    const files = diff.files as Array<{ path: string; additions: number; patch: string }>;
    expect(files.map((file) => file.path)).toEqual(["notes.txt"]);
    expect(files[0]?.additions).toBe(1);
    expect(files[0]?.patch).toContain(`+${EDITED_LINE}`);
    expect(files[0]?.patch).toContain("@@");
    const whole = await call("t3_diff", { environment: "real", threadId, scope: "thread" });
    expect(whole).toMatchObject({ complete: true, totals: { files: 1, additions: 1, deletions: 0 } });
  }, 150_000);

  it("shows the project's branch and the uncommitted edit in t3_worktree", async () => {
    const out = await call("t3_worktree", { environment: "real", threadId });
    expect(out).toMatchObject({
      folder: { path: repo, source: "project_root" },
      isRepo: true,
      branch: "main",
      isDefaultBranch: true,
    });
    if (providerReady) {
      expect(out.hasWorkingTreeChanges).toBe(true);
      expect(out.workingTree).toMatchObject({ files: [{ path: "notes.txt", additions: 1, deletions: 0 }] });
    }
  });
});
