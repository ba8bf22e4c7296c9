/**
 * The lease's truth (ADR 0037, 0040, 0041) against a real T3 server, by hand: not part of
 * `pnpm test` (CI has no real T3), run with `pnpm test:real` where one runs (docs/testing.md).
 *
 * The built gate and bridge, a passkey approval in headless Chromium, and the built read server for
 * fresh reads, against the server at T3_REAL_URL with the operate token in
 * T3_REAL_OPERATE_TOKEN_FILE and the read token in T3_REAL_READ_TOKEN_FILE. It needs a project
 * with two live threads that T3 runs in full-access (T3's default); it changes only their pins and
 * adds one launched thread, named "real-t3 trial: <time>".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeTokenFile } from "@t3-connector/core/config";
import { builtBin } from "@t3-connector/test-support/built-bins";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { freePort } from "@t3-connector/test-support/free-port";
import { type SpawnedServe, spawnServe } from "@t3-connector/test-support/spawned-serve";
import { SAMPLE_INPUTS } from "@t3-connector/write-engine/actions";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForMessage } from "../browser/support/gate-page.js";
import {
  type Body,
  callTool,
  structured,
  type ToolAnswer,
  textOf,
} from "../browser/support/gate-with-bridges.js";

const URL_ = process.env.T3_REAL_URL ?? "";
const OPERATE_TOKEN_FILE = process.env.T3_REAL_OPERATE_TOKEN_FILE ?? "";
const READ_TOKEN_FILE = process.env.T3_REAL_READ_TOKEN_FILE ?? "";
const ALIAS = "real";

let dir: string;
let gate: ChildProcess;
let gatePort: number;
let enrollmentCode: string;
let bridge: Client;
let reads: SpawnedServe;
let browser: Browser;
let tab: AuthenticatorPage;
let projectId: string;
/** Two live threads of one project, both running in full-access. */
let named: Body;
let other: Body;

async function environmentId(): Promise<string> {
  const answer = await fetch(`${URL_}/.well-known/t3/environment`);
  return ((await answer.json()) as { environmentId: string }).environmentId;
}

/** The server's live project ids: the read config allows exactly those. */
async function liveProjects(readToken: string): Promise<string[]> {
  const answer = await fetch(`${URL_}/api/projects`, { headers: { authorization: `Bearer ${readToken}` } });
  const { projects } = (await answer.json()) as { projects: Array<{ id: string; deletedAt: string | null }> };
  return projects.filter((project) => project.deletedAt === null).map((project) => project.id);
}

/** Starts the built gate on the config and reads its one-time enrollment code from its log. */
async function startGate(configPath: string): Promise<{ child: ChildProcess; code: string }> {
  const child = spawn(process.execPath, [builtBin("t3-connector-write"), "gate"], {
    env: { ...process.env, T3_CONNECTOR_WRITE_CONFIG: configPath },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines = createInterface({ input: child.stderr as NodeJS.ReadableStream });
  let code: string | undefined;
  let seen = "";
  for await (const line of lines) {
    seen += `${line}\n`;
    code = /one-time passkey enrollment code: (\S+)$/.exec(line)?.[1] ?? code;
    if (code !== undefined && /listening|approval page/i.test(seen)) break;
  }
  if (code === undefined) throw new Error(`the gate did not start:\n${seen}`);
  return { child, code };
}

async function readTool(name: string, args: Body): Promise<Body> {
  const answer = (await reads.client.callTool({ name, arguments: args })) as ToolAnswer;
  expect(answer.isError, textOf(answer)).toBeFalsy();
  return structured(answer);
}

/** `t3_thread`, which reads the thread's own fields fresh from T3 (not from the live mirror). */
const freshThread = (threadId: string) => readTool("t3_thread", { environment: ALIAS, threadId });

const projectOf = (thread: Body) => (thread.project as { projectId: string }).projectId;

let operations = 0;
const nextOperationId = () => {
  operations += 1;
  return `real-trial-${Date.now()}-${operations}`;
};
function write(action: string, leaseId: string, input: Body, operationId = nextOperationId()) {
  return callTool(bridge, `t3_escrever_${action.replaceAll(/[.-]/g, "_")}`, {
    leaseId,
    environment: ALIAS,
    operationId,
    input,
  });
}

/** Asks through the bridge and approves on the page with the passkey; answers the lease id. */
async function approvedLease(proposal: Body): Promise<string> {
  const asked = structured(await callTool(bridge, "t3_pedir_aprovacao", proposal));
  expect(asked).toMatchObject({ authorized: false, decision: "pending" });
  const waiting = callTool(bridge, "t3_pedir_aprovacao", { requestId: asked.requestId, waitSeconds: 60 });
  await tab.page.goto(asked.approvalUrl as string);
  await tab.page.locator("#request:not([hidden])").waitFor();
  await tab.page.click("[data-testid=approve]");
  await waitForMessage(tab.page, "Lease granted.");
  const answer = structured(await waiting);
  expect(answer).toMatchObject({ authorized: true });
  return answer.leaseId as string;
}

beforeAll(async () => {
  if (URL_ === "" || OPERATE_TOKEN_FILE === "" || READ_TOKEN_FILE === "") {
    throw new Error(
      "set T3_REAL_URL, T3_REAL_OPERATE_TOKEN_FILE and T3_REAL_READ_TOKEN_FILE (docs/testing.md)",
    );
  }
  dir = await mkdtemp(path.join(os.tmpdir(), "t3c-real-"));
  const id = await environmentId();
  const tokens = path.join(dir, "tokens");
  await writeTokenFile(path.join(tokens, "operate.token"), await readFile(OPERATE_TOKEN_FILE, "utf8"));
  await writeTokenFile(path.join(tokens, "read.token"), await readFile(READ_TOKEN_FILE, "utf8"));
  gatePort = await freePort();
  const writeConfig = path.join(dir, "write.json");
  await writeFile(
    writeConfig,
    JSON.stringify({
      port: gatePort,
      stateDir: path.join(dir, "state"),
      environments: {
        [ALIAS]: { environmentId: id, url: URL_, tokenFile: path.join(tokens, "operate.token") },
      },
    }),
    { mode: 0o600 },
  );
  const readConfig = path.join(dir, "config.json");
  await writeFile(
    readConfig,
    JSON.stringify({
      environments: {
        [ALIAS]: {
          environmentId: id,
          url: URL_,
          tokenFile: path.join(tokens, "read.token"),
          allowedProjects: await liveProjects((await readFile(READ_TOKEN_FILE, "utf8")).trim()),
        },
      },
    }),
    { mode: 0o600 },
  );
  ({ child: gate, code: enrollmentCode } = await startGate(writeConfig));
  reads = await spawnServe(readConfig);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [builtBin("t3-connector-write"), "bridge"],
    env: { ...(process.env as Record<string, string>), T3_CONNECTOR_WRITE_CONFIG: writeConfig },
    stderr: "pipe",
  });
  bridge = new Client({ name: "real-t3-trial", version: "1.0.0" });
  await bridge.connect(transport);
  browser = await launchChromium();
  tab = await openWithAuthenticator(browser);
  await tab.page.goto(`http://localhost:${gatePort}/`);
  await tab.page.waitForSelector("body[data-ready=true]");
  await tab.page.fill("[data-testid=passkey-name]", "trial laptop");
  await tab.page.fill("[data-testid=enroll-code]", enrollmentCode);
  await tab.page.click("[data-testid=enroll-submit]");
  await waitForMessage(tab.page, "Passkey registered.");

  // Two live full-access threads of one project, from the read server.
  const listed = await readTool("t3_threads", { environment: ALIAS, includeNoRun: true, limit: 50 });
  const threads = (listed.threads as Body[]).filter((thread) => thread.archived !== true);
  for (const candidate of threads) {
    const siblings = threads.filter((thread) => projectOf(thread) === projectOf(candidate));
    const fullAccess: Body[] = [];
    for (const sibling of siblings) {
      const fresh = await freshThread(sibling.threadId as string);
      if (fresh.runtimeMode === "full-access") fullAccess.push(fresh);
    }
    if (fullAccess.length >= 2) {
      [named, other] = fullAccess as [Body, Body];
      projectId = projectOf(candidate);
      break;
    }
  }
  if (named === undefined) {
    const seen = threads.map((thread) => `${String(thread.title)} (${String(thread.runtimeMode)})`);
    throw new Error(
      `no project with two live full-access threads (seed the server); seen: ${seen.join(", ")}`,
    );
  }
}, 180_000);

afterAll(async () => {
  await bridge?.close();
  await reads?.close();
  await tab?.context.close();
  await browser?.close();
  if (gate !== undefined && gate.exitCode === null) {
    gate.kill("SIGTERM");
    await once(gate, "exit");
  }
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("the lease's truth on a real T3", () => {
  let leaseId = "";

  it("admits only the thread the request named, and a pin shows at once in t3_thread", async () => {
    leaseId = await approvedLease({
      purpose: "real-t3 trial: pin one thread",
      environments: [ALIAS],
      threads: [named.threadId],
      actions: ["thread.pin", "thread.unpin", "thread.send", "thread.launch"],
    });
    const otherBefore = await freshThread(other.threadId as string);
    const refused = await write(otherBefore.pinned === true ? "thread.unpin" : "thread.pin", leaseId, {
      threadId: other.threadId,
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^scope_denied: /);
    expect(textOf(refused)).toContain(other.threadId as string);
    expect((await freshThread(other.threadId as string)).pinned).toBe(otherBefore.pinned);

    const namedBefore = await freshThread(named.threadId as string);
    const action = namedBefore.pinned === true ? "thread.unpin" : "thread.pin";
    const done = await write(action, leaseId, { threadId: named.threadId });
    expect(done.isError, textOf(done)).toBeFalsy();
    expect(structured(done)).toMatchObject({ state: "completed" });
    expect((await freshThread(named.threadId as string)).pinned).toBe(action === "thread.pin");
  }, 120_000);

  it("refuses a message to a full-access thread under the default ceiling, and nothing reaches it", async () => {
    const before = await readTool("t3_mensagens", { environment: ALIAS, threadId: named.threadId });
    const operationId = nextOperationId();
    const refused = await write(
      "thread.send",
      leaseId,
      {
        threadId: named.threadId,
        text: "real-t3 trial: this must never arrive",
        clientRequestId: operationId,
        delivery: "start_immediately",
      },
      operationId,
    );
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^runtime_mode_above_lease: .*full-access.*approval-required/);
    const after = await readTool("t3_mensagens", { environment: ALIAS, threadId: named.threadId });
    expect(JSON.stringify(after)).not.toContain("this must never arrive");
    expect((after.messages as unknown[]).length).toBe((before.messages as unknown[]).length);
  }, 60_000);

  it("launches without a mode at the lease's ceiling, and T3 records approval-required", async (context) => {
    // The connector refuses a launch on a model no provider offers (guard_refused) before T3: a
    // server with no provider installed cannot take a launch at all.
    const launched0 = await write("thread.launch", leaseId, {
      projectId,
      title: "real-t3 trial: probe",
      modelSelection: { instanceId: (named.model as Body).instanceId, model: (named.model as Body).model },
      workspaceStrategy: { type: "root" },
      text: "real-t3 trial: probe",
      runtimeMode: "full-access",
    });
    expect(textOf(launched0)).toMatch(/^runtime_mode_above_lease: /);
    // Models are listed only when asked for (includeModels); the named thread's own model must be
    // offered by a provider T3 reports ready, or the send's readiness guard refuses the launch.
    const model = named.model as Body;
    const providers = await readTool("t3_providers", {
      environment: ALIAS,
      instanceId: model.instanceId,
      includeModels: true,
    });
    const offered = (providers.providers as Body[]).some(
      (provider) =>
        provider.status === "ready" &&
        ((provider.models ?? []) as Body[]).some((listed) => listed.slug === model.model),
    );
    if (!offered)
      context.skip("no provider of this T3 server is ready with the thread's model: nothing can be launched");
    const title = `real-t3 trial: ${new Date().toISOString()}`;
    const launched = await write("thread.launch", leaseId, {
      projectId,
      title,
      modelSelection: { instanceId: (named.model as Body).instanceId, model: (named.model as Body).model },
      workspaceStrategy: { type: "root" },
      text: "real-t3 trial: list the files (no provider runs here)",
    });
    expect(launched.isError, textOf(launched)).toBeFalsy();
    const result = structured(launched);
    expect(result).toMatchObject({ state: "completed", runtimeMode: "approval-required" });
    const threadId = (result.receipt as Body | undefined)?.threadId as string;
    expect(threadId, JSON.stringify(result)).toBeTypeOf("string");
    expect(await freshThread(threadId)).toMatchObject({ title, runtimeMode: "approval-required" });
  }, 60_000);

  it("gives the same bridge its next lease after End on the page: one request, however often it asks", async () => {
    const card = tab.page.locator(`[data-lease-id="${leaseId}"]`);
    await card.locator("[data-testid=end-lease]").click();
    await waitForMessage(tab.page, "Lease ended.");
    const asks: Body[] = [];
    for (let index = 0; index < 5; index += 1) {
      asks.push(structured(await callTool(bridge, "t3_pedir_aprovacao", {})));
    }
    expect(new Set(asks.map((ask) => ask.requestId)).size).toBe(1);
    await tab.page.goto(asks[0]?.approvalUrl as string);
    await tab.page.locator("#request:not([hidden])").waitFor();
    await tab.page.click("[data-testid=approve]");
    await waitForMessage(tab.page, "Lease granted.");
    const next = structured(await callTool(bridge, "t3_pedir_aprovacao", {}));
    expect(next).toMatchObject({ authorized: true });
    expect(next.leaseId).not.toBe(leaseId);
  }, 120_000);

  it("refuses every action that makes or changes a run on a full-access thread, before T3", async () => {
    const runActions = [
      "prepared-run.release",
      "prepared-run.retry",
      "queued-run.edit",
      "queued-message.promote-to-steer",
      "queue.resume",
      "thread.send",
      "runtime-request.approve",
    ];
    const ceilingLease = await approvedLease({
      purpose: "real-t3 trial: run-changing actions",
      environments: [ALIAS],
      threads: [named.threadId],
      actions: runActions,
    });
    const before = await readTool("t3_mensagens", { environment: ALIAS, threadId: named.threadId });
    const refusals: Record<string, string> = {};
    for (const action of runActions) {
      const operationId = nextOperationId();
      const sample = SAMPLE_INPUTS[action as keyof typeof SAMPLE_INPUTS] as Body;
      const input: Body = { ...sample, threadId: named.threadId };
      if ("clientRequestId" in sample) input.clientRequestId = operationId;
      const refused = await write(action, ceilingLease, input, operationId);
      expect(refused.isError, `${action}: ${textOf(refused)}`).toBe(true);
      // An older T3 lacks some of these commands: refused `action_unsupported`, nothing sent either.
      expect(textOf(refused), action).toMatch(
        /^(runtime_mode_above_lease: .*full-access|action_unsupported: )/,
      );
      refusals[action] = textOf(refused).split(":")[0] ?? "";
    }
    // Every action this server has is refused by the ceiling, not by chance of an unsupported command.
    expect(Object.values(refusals)).toContain("runtime_mode_above_lease");
    console.error(`refusals on this T3: ${JSON.stringify(refusals)}`);
    const after = await readTool("t3_mensagens", { environment: ALIAS, threadId: named.threadId });
    expect((after.messages as unknown[]).length).toBe((before.messages as unknown[]).length);
  }, 120_000);
});
