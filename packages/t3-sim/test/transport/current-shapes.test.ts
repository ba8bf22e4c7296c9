/**
 * Shapes current upstream settled (its V2 contracts for the shell
 * row and `thread.auto-settle-set`, threadPullRequest.ts for links), over real sockets; 0.0.31
 * keeps its captured row.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { RawRpcClient, startSim, type TestEnv, type TestSim } from "./helpers.js";
import { StreamWatch } from "./shell-watch.js";

let sim: TestSim | undefined;
const clients: RawRpcClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await sim?.close();
  sim = undefined;
});

async function start(options: { compat?: "0.0.31" } = {}) {
  sim = await startSim({
    environments: [{ alias: "env", seed: "empty", shellSuppression: false, ...options }],
  });
  const env = sim.environment("env");
  const project = env.model.addProject({ title: "app", workspaceRoot: "/home/sim/code/app" });
  const threadId = env.model.addThread({ projectId: project.id, title: "one" });
  const client = await RawRpcClient.connect(env.url, env.adminToken);
  clients.push(client);
  return { env, project, threadId, client };
}

let counter = 0;
async function dispatch(client: RawRpcClient, payload: Record<string, unknown>) {
  const frame = (await client.call(`c${++counter}`, "orchestration.dispatchCommand", {
    commandId: randomUUID(),
    ...payload,
  })) as unknown as { exit: { _tag: string; value?: { sequence: number }; cause?: unknown } };
  return frame.exit;
}

async function shellRow(env: TestEnv, threadId: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${env.url}/api/orchestration/shell`, {
    headers: { authorization: `Bearer ${env.readToken}`, "x-t3-orchestration-protocol": "2" },
  });
  const body = (await response.json()) as { threads: Record<string, unknown>[] };
  return body.threads.find((row) => row.id === threadId) ?? {};
}

const NEWER_ROW_FIELDS = [
  "pullRequests",
  "branchPullRequest",
  "activityRunStartedAt",
  "lastErrorClass",
  "usageLimitResetAt",
  "latestUserAuthoredMessageAt",
  "providerInstanceHistory",
  "limitRecovery",
  "autoSettleDisabledAt",
  "activeOrderKey",
];

describe("shell rows on protocol 2", () => {
  it("carry the newer fields; a failed run names its failure class", async () => {
    const { env, threadId, client } = await start();
    const row = await shellRow(env, threadId);
    for (const field of NEWER_ROW_FIELDS) expect(row).toHaveProperty(field);
    expect(row).toMatchObject({ pullRequests: [], providerInstanceHistory: [], lastErrorClass: null });
    const thread = StreamWatch.open(client, "t1", "orchestration.subscribeThread", { threadId });
    await thread.waitFor((item) => item.kind === "snapshot");
    await dispatch(client, {
      type: "message.dispatch",
      threadId,
      messageId: randomUUID(),
      text: "[[sim:fail=boom]] go",
      attachments: [],
      createdBy: "user",
      creationSource: "mcp",
      dispatchMode: { type: "start_immediately" },
    });
    await thread.waitFor(
      (item) =>
        item.kind === "event" &&
        (item.event as { type: string; payload: { status?: string } }).type === "run.updated" &&
        (item.event as { payload: { status?: string } }).payload.status === "failed",
    );
    expect(await shellRow(env, threadId)).toMatchObject({
      status: "failed",
      lastError: "boom",
      lastErrorClass: expect.any(String),
      latestUserAuthoredMessageAt: expect.any(String),
      providerInstanceHistory: ["codex"],
    });
  });

  it("0.0.31 rows keep the captured key set, without the newer fields", async () => {
    const { env } = await start({ compat: "0.0.31" });
    const response = await fetch(`${env.url}/api/orchestration/shell`, {
      headers: { authorization: `Bearer ${env.readToken}` },
    });
    const row = ((await response.json()) as { threads: Record<string, unknown>[] }).threads[0] ?? {};
    for (const field of NEWER_ROW_FIELDS) expect(row).not.toHaveProperty(field);
  });
});

describe("thread.auto-settle.set", () => {
  it("emits thread.auto-settle-set with the whole thread and autoSettleDisabledAt", async () => {
    const { env, threadId, client } = await start();
    const thread = StreamWatch.open(client, "t1", "orchestration.subscribeThread", { threadId });
    await thread.waitFor((item) => item.kind === "snapshot");
    expect((await dispatch(client, { type: "thread.auto-settle.set", threadId, enabled: false }))._tag).toBe(
      "Success",
    );
    const off = await thread.waitFor(
      (item) => (item.event as { type?: string } | undefined)?.type === "thread.auto-settle-set",
    );
    const payload = (off.event as { payload: Record<string, unknown> }).payload;
    expect(payload).toMatchObject({ id: threadId, title: "one", autoSettleDisabledAt: expect.any(String) });
    expect((await shellRow(env, threadId)).autoSettleDisabledAt).toBe(payload.autoSettleDisabledAt);
    await dispatch(client, { type: "thread.auto-settle.set", threadId, enabled: true });
    expect((await shellRow(env, threadId)).autoSettleDisabledAt).toBeNull();
  });
});

describe("pull-request links", () => {
  it("link and unlink key on {host, repository, number}; the legacy single link follows the newest", async () => {
    const { env, project, threadId, client } = await start();
    const key = { host: "github.com", repository: "sim/app", number: 7 };
    const url = "https://github.com/sim/app/pull/7";
    expect(
      (await dispatch(client, { type: "thread.pull-request.link", threadId, ...key, url, source: "manual" }))
        ._tag,
    ).toBe("Success");
    expect(await shellRow(env, threadId)).toMatchObject({
      pullRequests: [
        { ...key, url, source: "manual", linkedAt: expect.any(String), snapshot: null, stack: null },
      ],
      linkedPullRequest: { projectId: project.id, repository: "sim/app", number: 7, url },
    });
    const wrongHost = await dispatch(client, {
      type: "thread.pull-request.unlink",
      threadId,
      ...key,
      host: "gitlab.com",
    });
    expect(wrongHost._tag).toBe("Failure");
    await dispatch(client, { type: "thread.pull-request.unlink", threadId, ...key });
    expect(await shellRow(env, threadId)).toMatchObject({ pullRequests: [], linkedPullRequest: null });
  });
});

describe("bounded snapshot window (threadHistoryPaging.ts)", () => {
  it("keeps the last 10 user turns, pages the older ones by 20 turns, and always says payloadBudgetExceeded", async () => {
    const { env, threadId } = await start();
    const client = clients[0] as RawRpcClient;
    const thread = StreamWatch.open(client, "t1", "orchestration.subscribeThread", { threadId });
    await thread.waitFor((item) => item.kind === "snapshot");
    for (let turn = 0; turn < 12; turn++) {
      await dispatch(client, {
        type: "message.dispatch",
        threadId,
        messageId: `m-${turn}`,
        text: `turn ${turn}`,
        attachments: [],
        createdBy: "user",
        creationSource: "mcp",
        dispatchMode: { type: "queue_after_active" },
      });
    }
    await thread.waitFor(
      (item) =>
        (item.event as { type?: string; payload?: { status?: string; ordinal?: number } } | undefined)
          ?.type === "run.updated" &&
        (item.event as { payload: { status?: string; ordinal?: number } }).payload.ordinal === 12 &&
        (item.event as { payload: { status?: string } }).payload.status === "completed",
    );
    const get = async (path: string) =>
      (await (
        await fetch(`${env.url}${path}`, {
          headers: { authorization: `Bearer ${env.readToken}`, "x-t3-orchestration-protocol": "2" },
        })
      ).json()) as Record<string, unknown> & {
        projection: { visibleTurnItems: { item: { type: string; text?: string } }[] };
      };
    const bounded = await get(`/api/orchestration/threads/${threadId}/bounded`);
    const userTexts = (rows: { item: { type: string; text?: string } }[]) =>
      rows.filter((row) => row.item.type === "user_message").map((row) => row.item.text);
    expect(userTexts(bounded.projection.visibleTurnItems)).toEqual(
      Array.from({ length: 10 }, (_, i) => `turn ${i + 2}`),
    );
    expect(bounded.projection.visibleTurnItems[0]?.item.type).toBe("user_message");
    expect(bounded).toMatchObject({ hasMoreHistory: true, payloadBudgetExceeded: false });
    const page = (await get(
      `/api/orchestration/threads/${threadId}/history?cursor=${encodeURIComponent(String(bounded.historyCursor))}`,
    )) as unknown as { items: { item: { type: string; text?: string } }[]; hasMoreHistory: boolean };
    expect(userTexts(page.items)).toEqual(["turn 0", "turn 1"]);
    expect(page.hasMoreHistory).toBe(false);
  });
});

describe("orchestration.getTurnItem", () => {
  it("answers {item} for a stored turn item, a typed failure for an unknown one, and is unknown on 0.0.31", async () => {
    const { threadId, client } = await start();
    const thread = StreamWatch.open(client, "t1", "orchestration.subscribeThread", { threadId });
    await thread.waitFor((item) => item.kind === "snapshot");
    await dispatch(client, {
      type: "message.dispatch",
      threadId,
      messageId: "m-1",
      text: "hello",
      attachments: [],
      createdBy: "user",
      creationSource: "mcp",
      dispatchMode: { type: "start_immediately" },
    });
    const userItem = await thread.waitFor(
      (item) =>
        (item.event as { type?: string; payload?: { type?: string } } | undefined)?.type ===
          "turn-item.updated" &&
        (item.event as { payload: { type?: string } }).payload.type === "user_message",
    );
    const itemId = (userItem.event as { payload: { id: string } }).payload.id;
    const found = (await client.call("g1", "orchestration.getTurnItem", { threadId, itemId })) as unknown as {
      exit: { _tag: string; value: { item: { id: string; text: string } } };
    };
    expect(found.exit._tag).toBe("Success");
    expect(found.exit.value.item).toMatchObject({ id: itemId, type: "user_message", text: "hello" });
    const missing = (await client.call("g2", "orchestration.getTurnItem", {
      threadId,
      itemId: "no-such-item",
    })) as unknown as { exit: { _tag: string; cause: { _tag: string }[] } };
    expect(missing.exit).toMatchObject({ _tag: "Failure", cause: [{ _tag: "Fail" }] });

    const older = await startSim({ environments: [{ alias: "old", seed: "empty", compat: "0.0.31" }] });
    try {
      const env = older.environment("old");
      const oldClient = await RawRpcClient.connect(env.url, env.adminToken);
      clients.push(oldClient);
      const unknown = (await oldClient.call("g3", "orchestration.getTurnItem", {
        threadId,
        itemId,
      })) as unknown as {
        exit: { cause: { _tag: string; defect: string }[] };
      };
      expect(unknown.exit.cause[0]).toEqual({
        _tag: "Die",
        defect: "Unknown request tag: orchestration.getTurnItem",
      });
    } finally {
      await older.close();
    }
  });
});
