/**
 * The read ACL by folder (`allowedProjectRoots`, ADR 0074) against a real T3 server, by hand
 * (`pnpm test:real`, docs/testing-against-real-t3.md): not part of `pnpm test`. The server must run
 * on this machine. The test makes a root folder with a project folder in it and a symlink in it that
 * leads out, creates one project on each (T3 stores the symlink as named), and lists projects with
 * a read config naming only the root: the first is listed, the one through the symlink is not, nor
 * is any other project of the server. It deletes both projects after.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReadContext } from "../../src/read-context.js";
import { startRealReadServer } from "./real-read-server.js";

const URL_ = process.env.T3_REAL_URL ?? "";
const token = (variable: string) =>
  process.env[variable] ? readFileSync(process.env[variable] as string, "utf8").trim() : "";
const READ_TOKEN = token("T3_REAL_READ_TOKEN_FILE");
const OPERATE_TOKEN = token("T3_REAL_OPERATE_TOKEN_FILE");

let dir: string;
let context: ReadContext;
let client: Client;
const inside = randomUUID();
const escaped = randomUUID();

async function mutate(body: Record<string, unknown>): Promise<void> {
  const answer = await fetch(`${URL_}/api/projects/mutate`, {
    method: "POST",
    headers: { authorization: `Bearer ${OPERATE_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ commandId: randomUUID(), ...body }),
  });
  if (!answer.ok) throw new Error(`projects/mutate ${answer.status}: ${await answer.text()}`);
}

beforeAll(async () => {
  if (!URL_ || !READ_TOKEN || !OPERATE_TOKEN)
    throw new Error("set T3_REAL_URL, T3_REAL_READ_TOKEN_FILE and T3_REAL_OPERATE_TOKEN_FILE");
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "t3-real-by-folder-")));
  const root = path.join(dir, "work");
  mkdirSync(path.join(root, "inside"), { recursive: true });
  mkdirSync(path.join(dir, "elsewhere"));
  symlinkSync(path.join(dir, "elsewhere"), path.join(root, "escape"));
  const stamp = new Date().toISOString();
  await mutate({
    type: "project.create",
    projectId: inside,
    title: `real-t3 by folder, inside: ${stamp}`,
    workspaceRoot: path.join(root, "inside"),
  });
  await mutate({
    type: "project.create",
    projectId: escaped,
    title: `real-t3 by folder, through a symlink: ${stamp}`,
    workspaceRoot: path.join(root, "escape"),
  });
  ({ context, client } = await startRealReadServer({
    url: URL_,
    readToken: READ_TOKEN,
    dir,
    acl: { allowedProjectRoots: [root] },
    clientName: "real-by-folder",
  }));
}, 60_000);

afterAll(async () => {
  await client?.close();
  context?.registry.close();
  for (const projectId of [inside, escaped]) {
    await mutate({ type: "project.delete", projectId }).catch(() => undefined);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the read ACL by folder on a real T3", () => {
  it("lists the project under the named folder, and neither the one through a symlink out of it nor any other", async () => {
    const result = await client.callTool({ name: "t3_projetos", arguments: { environment: "real" } });
    expect(result.isError).toBeFalsy();
    const listed = (result.structuredContent as { projects: { projectId: string }[] }).projects;
    expect(listed.map((project) => project.projectId)).toEqual([inside]);
  });
});
