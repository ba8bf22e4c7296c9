/**
 * A created project is readable under the person's own rule (ADR 0074): over real sockets, a
 * client asks through the bridge for a lease naming a create under the gate's allowed root, the
 * person approves it on the gate's page with a passkey, the client creates the project, and the
 * read server, whose read config names that folder in `allowedProjectRoots`, lists it in
 * `t3_projetos` and reads its threads by id. A project outside the folder, or inside it through a symlink that leaves it, stays
 * invisible; and a read config that does not name the folder does not list the new project (the
 * read ACL never widens by itself).
 */
import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { postJson } from "@t3-connector/test-support/gate-http";
import { pageOrigin, type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { LEASED_PROJECT, OTHER_PROJECT } from "@t3-connector/test-support/sim-world";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { createBridgeServer, createRelayClient } from "@t3-connector/write-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { t3ProjetosTool } from "../../src/tools/t3_projetos.js";
import { t3ThreadTool } from "../../src/tools/t3_thread.js";
import { t3ThreadReadBatchTool } from "../../src/tools/t3_thread_read_batch.js";

type Body = Record<string, unknown>;
type Answer = { isError?: boolean; structuredContent?: unknown; content?: unknown };

let folders: string;
let root: string;
let real: RealGate;
let bridge: Client;
const reads: SimReadSetup[] = [];

beforeAll(async () => {
  folders = await realpath(await mkdtemp(join(tmpdir(), "t3c-read-roots-")));
  root = join(folders, "work");
  await mkdir(root);
  await mkdir(join(folders, "elsewhere"));
  await symlink(join(folders, "elsewhere"), join(root, "escape"));
  real = await startRealGate({ projectRoots: [root] });
  const server = createBridgeServer({
    relay: createRelayClient({ port: real.gate.port, stateDir: real.config.stateDir, timeoutMs: 10_000 }),
    log: () => {},
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  bridge = new Client({ name: "project-client", version: "1.0.0" });
  await server.connect(serverSide);
  await bridge.connect(clientSide);
});

afterAll(async () => {
  for (const read of reads) await read.close();
  await bridge?.close();
  await real?.close();
  await rm(folders, { recursive: true, force: true });
});

async function call(name: string, args: Body): Promise<Body> {
  const answer = (await bridge.callTool({ name, arguments: args })) as Answer;
  const text = (answer.content as { text?: string }[] | undefined)?.[0]?.text ?? "";
  if (answer.isError) throw new Error(`${name}: ${text}`);
  return answer.structuredContent as Body;
}

/** What the person does on the gate's page: enroll once, then approve what the page ticked. */
async function approveOnPage(requestId: string): Promise<Body> {
  const origin = pageOrigin(real.gate);
  const page = (path: string, body: unknown) => postJson(real.gate.port, path, body, { origin });
  const passkey = new SoftPasskey(origin);
  const started = await page("/api/enrollment/options", { code: real.enrollmentCode, name: "laptop" });
  const { registrationId, options: creation } = started.body as { registrationId: string; options: never };
  expect(
    (await page("/api/enrollment/finish", { registrationId, response: passkey.create(creation) })).status,
  ).toBe(200);
  const view = (await page("/api/requests/view", { requestId })).body as Body;
  const challenge = await page("/api/requests/options", { requestId, selection: view.preselected });
  expect(challenge.status).toBe(200);
  const approved = await page("/api/requests/approve", {
    requestId,
    response: passkey.get((challenge.body as { options: never }).options),
  });
  expect(approved.status).toBe(200);
  return view;
}

async function listed(read: SimReadSetup): Promise<string[]> {
  const result = await read.call("t3_projetos", { environment: "alpha" });
  return (result.projects as { projectId: string }[]).map((project) => project.projectId);
}

describe("a project created under an approved lease is listed by the read server's folder rule", () => {
  it("lists the created project under allowedProjectRoots, and nothing outside the folder", async () => {
    const folder = join(root, "new-work");
    const asked = await call("t3_pedir_aprovacao", {
      purpose: "start the new work",
      projectWrites: [
        {
          environment: "alpha",
          action: "project.create",
          workspaceRoot: folder,
          createWorkspaceRootIfMissing: true,
        },
      ],
    });
    const view = await approveOnPage(asked.requestId as string);
    expect((view.projectWrites as { words: string }[])[0]?.words).toBe(
      `create a project at ${folder}; that folder does not exist and would be created`,
    );
    const lease = await call("t3_pedir_aprovacao", {});
    expect(lease).toMatchObject({ authorized: true });
    const created = await call("t3_escrever_project_create", {
      leaseId: lease.leaseId,
      environment: "alpha",
      operationId: "create-new-work",
      input: { title: "new work", workspaceRoot: folder, createWorkspaceRootIfMissing: true },
    });
    const projectId = (created.receipt as { projectId: string }).projectId;

    // Put there by hand: a project whose folder is in the root only through a symlink out of it.
    real.world.env("alpha").model.addProject({
      id: "through-escape",
      title: "through the escape link",
      workspaceRoot: join(root, "escape"),
    });
    const alpha = real.world.env("alpha");
    alpha.model.addThread({ id: "in-new-work", projectId, state: "completed" });
    alpha.model.addThread({ id: "in-escape", projectId: "through-escape", state: "completed" });
    const definitions = [t3ProjetosTool, t3ThreadTool, t3ThreadReadBatchTool];
    const byFolder = await startSimRead({
      simulator: { running: real.world.sim },
      definitions,
      allowedProjects: { alpha: [LEASED_PROJECT] },
      allowedProjectRoots: { alpha: [root] },
    });
    reads.push(byFolder);
    const shown = await listed(byFolder);
    expect(shown).toContain(projectId);
    expect(shown).toContain(LEASED_PROJECT);
    expect(shown).not.toContain(OTHER_PROJECT);
    expect(shown).not.toContain("through-escape");
    // A read by id follows the same rule, one thread at a time and in a batch.
    expect(await byFolder.call("t3_thread", { environment: "alpha", threadId: "in-new-work" })).toMatchObject(
      {
        threadId: "in-new-work",
      },
    );
    expect(await byFolder.callError("t3_thread", { environment: "alpha", threadId: "in-escape" })).toMatch(
      /^thread_not_found: /,
    );
    const batch = await byFolder.call("t3_thread_read_batch", {
      items: [
        { environment: "alpha", threadId: "in-new-work" },
        { environment: "alpha", threadId: "in-escape" },
      ],
    });
    expect((batch.items as { status: string }[]).map((item) => item.status)).toEqual(["ok", "error"]);

    // The same server without the folder in its read config: the new project stays unlisted.
    const byIdOnly = await startSimRead({
      simulator: { running: real.world.sim },
      definitions,
      allowedProjects: { alpha: [LEASED_PROJECT] },
    });
    reads.push(byIdOnly);
    expect(await listed(byIdOnly)).toEqual([LEASED_PROJECT]);
    expect(await byIdOnly.callError("t3_thread", { environment: "alpha", threadId: "in-new-work" })).toMatch(
      /^thread_not_found: /,
    );
  });
});
