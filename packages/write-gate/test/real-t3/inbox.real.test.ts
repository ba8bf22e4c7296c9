/**
 * The person's inbox against a real T3 server (ADR 0073), by hand (`pnpm test:real`, docs/testing-
 * against-real-t3.md): the gate's page and engine over real sockets, with a passkey held in this
 * process, against the server at T3_REAL_URL (operate token in T3_REAL_OPERATE_TOKEN_FILE) started
 * with the scripted Codex (`T3REAL_FAKE_CODEX=1`). An `ASK-APPROVAL` run is approved from `/inbox`
 * and completes; then an `ASK-INPUT` run of the same thread is answered there and completes. One
 * after the other: on 0.0.31 every Codex thread of a server shares one Codex process, which reads
 * nothing else while a request waits. It adds one project (a fresh git repository) and one thread.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { serve } from "@hono/node-server";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import { postJson } from "@t3-connector/test-support/gate-http";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { CommandSupportCache } from "@t3-connector/write-engine/capabilities";
import { openWriteEngine, type WriteEngine } from "@t3-connector/write-engine/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateApp } from "../../src/app/index.js";
import { registryInventory } from "../../src/approval/index.js";
import { type AuditLog, openAuditLog } from "../../src/audit/index.js";

const URL_ = process.env.T3_REAL_URL ?? "";
const OPERATE_TOKEN_FILE = process.env.T3_REAL_OPERATE_TOKEN_FILE ?? "";
const CODE = "WXYZ-2345-6789-ABCD";
/** How long a scripted run may take on a loaded machine: a bound, not a measurement. */
const RUN_WAIT_MS = 90_000;

interface Item {
  itemId: string;
  kind: string;
  environment: { environmentId: string };
  thread: { id: string } | null;
  request: { requestId: string; content?: { questions?: { id: string; options: { label: string }[] }[] } };
}

let dir: string;
let registry: EnvironmentRegistry;
let engine: WriteEngine;
let audit: AuditLog;
let server: ReturnType<typeof serve>;
let port: number;
let passkey: SoftPasskey;
let threadId: string;

const post = (route: string, body: unknown) =>
  postJson(port, route, body, { origin: `http://localhost:${port}` });

async function items(): Promise<Item[]> {
  const answer = await post("/inbox/api/items", {});
  expect(answer.status).toBe(200);
  return (answer.body as { items: Item[] }).items;
}

async function waitingItem(kind: string): Promise<Item> {
  let found: Item | undefined;
  await expect
    .poll(
      async () => {
        found = (await items()).find((item) => item.thread?.id === threadId && item.kind === kind);
        return found !== undefined;
      },
      { timeout: RUN_WAIT_MS, interval: 500 },
    )
    .toBe(true);
  return found as Item;
}

async function decide(decisions: unknown[]): Promise<{ result: string; code: string | null }[]> {
  const asked = await post("/inbox/api/options", { decisions });
  expect(asked.status).toBe(200);
  const { ticketId, options } = asked.body as { ticketId: string; options: never };
  const decided = await post("/inbox/api/decide", { ticketId, decisions, response: passkey.get(options) });
  expect(decided.status).toBe(200);
  return (decided.body as { outcomes: { result: string; code: string | null }[] }).outcomes;
}

async function runStatus(ordinal: number): Promise<string | undefined> {
  const rpc = await (await registry.resolve("real").connect()).rpc();
  const projection = await rpc.getThreadProjection(threadId);
  return projection.runs.find((run) => run.ordinal === ordinal)?.status;
}

describe.skipIf(URL_ === "" || OPERATE_TOKEN_FILE === "")(
  "the inbox on a real T3 with the scripted Codex",
  () => {
    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "t3c-inbox-real-"));
      const stateDir = path.join(dir, "state");
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
      const described = (await (await fetch(`${URL_}/.well-known/t3/environment`)).json()) as {
        environmentId: string;
      };
      registry = new EnvironmentRegistry({
        environments: [
          {
            alias: "real",
            environmentId: described.environmentId,
            transport: { kind: "url", url: URL_ },
            tokenFile: OPERATE_TOKEN_FILE,
          },
        ],
        requiredScopes: OPERATE_SCOPES,
      });
      engine = await openWriteEngine({ stateDir, registry, channel: "inbox-real" });
      audit = await openAuditLog({
        stateDir,
        clock: { now: () => Date.now(), monotonic: () => performance.now() },
      });
      let handler: ((request: Request, env: unknown) => Response | Promise<Response>) | undefined;
      server = serve({
        fetch: (request, env) =>
          handler === undefined ? new Response(null, { status: 503 }) : handler(request, env),
        hostname: "127.0.0.1",
        port: 0,
      });
      await new Promise<void>((resolve) => server.once("listening", () => resolve()));
      port = (server.address() as AddressInfo).port;
      const gate = await createGateApp({
        port,
        clock: { now: () => Date.now(), monotonic: () => performance.now() },
        stateDir,
        enrollmentCode: CODE,
        inventory: registryInventory(registry, { commandSupport: new CommandSupportCache() }),
        log: () => undefined,
        audit,
        inbox: { registry, engine },
      });
      handler = (request, env) => gate.app.fetch(request, env);
      passkey = new SoftPasskey(`http://localhost:${port}`);
      const started = await post("/api/enrollment/options", { code: CODE, name: "Laptop" });
      const { registrationId, options } = started.body as { registrationId: string; options: never };
      expect(
        (await post("/api/enrollment/finish", { registrationId, response: passkey.create(options) })).status,
      ).toBe(200);

      // A project on a fresh git repository (T3 checkpoints the workspace with git), and one thread.
      const workspace = path.join(dir, "workspace");
      await mkdir(workspace);
      await writeFile(path.join(workspace, "README.md"), "# inbox trial\n");
      const git = (...args: string[]) => execFileSync("git", args, { cwd: workspace, stdio: "ignore" });
      git("init", "-q");
      git("add", ".");
      git("-c", "user.name=inbox", "-c", "user.email=inbox@example.invalid", "commit", "-q", "-m", "init");
      const token = (
        await import("node:fs/promises").then((fs) => fs.readFile(OPERATE_TOKEN_FILE, "utf8"))
      ).trim();
      const projectId = randomUUID();
      const created = await fetch(`${URL_}/api/projects/mutate`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          type: "project.create",
          commandId: randomUUID(),
          projectId,
          title: "Inbox trial",
          workspaceRoot: workspace,
          createWorkspaceRootIfMissing: true,
        }),
      });
      expect(created.ok).toBe(true);
      const rpc = await (await registry.resolve("real").connect()).rpc();
      const launched = await rpc.launchThread({
        commandId: randomUUID(),
        creationSource: "web",
        projectId,
        title: `real-t3 inbox trial: ${new Date().toISOString()}`,
        modelSelection: { instanceId: "codex", model: "gpt-5.6-sol" },
        runtimeMode: "approval-required",
        interactionMode: "default",
        workspaceStrategy: { type: "root" },
        initialMessage: { text: "ASK-APPROVAL echo from-the-inbox", attachments: [] },
      });
      threadId = launched.threadId;
    }, 180_000);

    afterAll(async () => {
      // A request left waiting would hold the server's one Codex process: answer it before leaving.
      if (threadId !== undefined) {
        const rpc = await (await registry.resolve("real").connect()).rpc();
        const projection = await rpc.getThreadProjection(threadId);
        for (const request of projection.runtimeRequests.filter((row) => row.status === "pending")) {
          await rpc.dispatchCommand({
            commandId: randomUUID(),
            type: "runtime-request.respond",
            threadId,
            requestId: request.id,
            ...(request.kind === "user_input"
              ? { answers: { answer: "left over" } }
              : { decision: "decline" }),
          });
        }
      }
      await new Promise<void>((resolve) =>
        server === undefined ? resolve() : server.close(() => resolve()),
      );
      await engine?.close();
      await audit?.close();
      await registry?.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it("approves the ASK-APPROVAL run from /inbox; the run completes and the same set again sends nothing", async () => {
      const approval = await waitingItem("approval");
      const decision = {
        environmentId: approval.environment.environmentId,
        threadId,
        requestId: approval.request.requestId,
        decision: "accept",
        answers: null,
      };
      expect(await decide([decision])).toEqual([expect.objectContaining({ result: "sent" })]);
      await expect.poll(() => runStatus(1), { timeout: RUN_WAIT_MS, interval: 500 }).toBe("completed");
      const again = await decide([decision]);
      expect(again[0]?.result).toBe("already_answered");
    });

    it("then answers the ASK-INPUT run there; it completes", async () => {
      const rpc = await (await registry.resolve("real").connect()).rpc();
      await rpc.dispatchCommand({
        commandId: randomUUID(),
        type: "message.dispatch",
        createdBy: "user",
        creationSource: "web",
        threadId,
        messageId: randomUUID(),
        text: "ASK-INPUT Which colour should the button be?",
        attachments: [],
        dispatchMode: { type: "start_immediately" },
      });
      const question = await waitingItem("question");
      const asked = question.request.content?.questions?.[0];
      if (asked === undefined) throw new Error("the question's content is not in the read");
      // One of its options: it takes no free text (T3's question lists no custom answer).
      const option = asked.options[0]?.label as string;
      const outcomes = await decide([
        {
          environmentId: question.environment.environmentId,
          threadId,
          requestId: question.request.requestId,
          decision: "answer",
          answers: { [asked.id]: option },
        },
      ]);
      expect(outcomes).toEqual([expect.objectContaining({ result: "sent" })]);
      await expect.poll(() => runStatus(2), { timeout: RUN_WAIT_MS, interval: 500 }).toBe("completed");
    });
  },
);
