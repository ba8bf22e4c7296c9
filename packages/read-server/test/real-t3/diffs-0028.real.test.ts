/**
 * `t3_diff` and `t3_worktree` against a real T3 0.0.28 (protocol 1), by hand (`pnpm test:real`,
 * docs/testing-against-real-t3.md). 0.0.28 serves the diff and version-control RPCs
 * (fixtures/t3-0.0.28/14), but it does not speak orchestration protocol 2, so the connector
 * refuses it at connect: both tools answer `protocol_unsupported` naming the
 * version, as every read does for it, and never a diff read on its V1 records. Needs
 * T3_REAL_0028_URL and T3_REAL_0028_READ_TOKEN_FILE (a server seeded with `T3REAL_SEED_V1=1
 * seed.mjs`); skipped without them.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { parseReadConfig, writeTokenFile } from "@t3-connector/core/config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProcessReadContext, type ReadContext } from "../../src/read-context.js";
import { createReadServer } from "../../src/server.js";
import { readToolDefinitions } from "../../src/tools/index.js";

const URL_ = process.env.T3_REAL_0028_URL ?? "";
const TOKEN_FILE = process.env.T3_REAL_0028_READ_TOKEN_FILE ?? "";

let dir: string | undefined;
let context: ReadContext | undefined;
let client: Client | undefined;
let threadIds: string[] = [];

async function refusal(name: string, args: Record<string, unknown>): Promise<string> {
  if (client === undefined) throw new Error("no client");
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  return (result.content as Array<{ text?: string }>)[0]?.text ?? "";
}

describe.skipIf(URL_ === "" || TOKEN_FILE === "")("diffs on a real T3 0.0.28", () => {
  beforeAll(async () => {
    const token = readFileSync(TOKEN_FILE, "utf8").trim();
    const descriptor = (await (await fetch(`${URL_}/.well-known/t3/environment`)).json()) as {
      environmentId: string;
      serverVersion?: string;
    };
    expect(descriptor.serverVersion).toBe("0.0.28");
    // Its thread ids, read as V1 rows straight from its shell (the connector refuses to read them).
    const shell = (await (
      await fetch(`${URL_}/api/orchestration/shell`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { threads?: Array<{ id: string; projectId: string }>; projects?: Array<{ id: string }> };
    threadIds = (shell.threads ?? []).map((thread) => thread.id);
    expect(threadIds.length).toBeGreaterThan(0);
    dir = mkdtempSync(path.join(os.tmpdir(), "t3-real-0028-"));
    const tokenFile = path.join(dir, "tokens", "old.token");
    await writeTokenFile(tokenFile, token);
    const allowedProjects = (shell.projects ?? []).map((project) => project.id);
    const config = parseReadConfig(
      {
        environments: {
          old: { environmentId: descriptor.environmentId, url: URL_, tokenFile, allowedProjects },
        },
      },
      { path: path.join(dir, "config.json") },
    );
    context = createProcessReadContext({ config, log: () => undefined });
    const server = createReadServer(readToolDefinitions, context);
    client = new Client({ name: "real-diffs-0028", version: "0.0.0" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    context?.registry.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("refuses t3_diff and t3_worktree as protocol_unsupported, naming 0.0.28", async () => {
    const threadId = threadIds[0];
    for (const args of [{}, { scope: "thread" }]) {
      expect(await refusal("t3_diff", { environment: "old", threadId, ...args })).toMatch(
        /^protocol_unsupported: environment "old" runs T3 0\.0\.28, which does not speak orchestration protocol 2/,
      );
    }
    expect(await refusal("t3_worktree", { environment: "old", threadId })).toMatch(/^protocol_unsupported: /);
  });
});
