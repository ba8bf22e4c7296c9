import { describe, expect, it } from "vitest";
import { connectorFailure } from "./support/connector-failure.js";
import type { SimOps } from "./support/sim-ops.js";
import { useSimOpsPerTest } from "./support/sim-ops-per-test.js";

let setup: SimOps;

useSimOpsPerTest((started) => {
  setup = started;
});

const launch = {
  project: "website",
  title: "Footer fix",
  instance: "codex",
  model: "gpt-5.6-sol",
  brief: "Fix the footer links",
  clientRequestId: "footer-1",
};

describe("ls", () => {
  it("lists every environment's threads grouped by project, each with its canonical state, icon and age", async () => {
    const listing = await setup.ops.list();
    expect(listing.unreachable).toEqual([]);
    expect(listing.environments.map((env) => env.alias)).toEqual(["alpha", "beta"]);
    for (const env of listing.environments) {
      const threads = env.projects.flatMap((project) => project.threads);
      expect(threads.length).toBeGreaterThan(0);
      expect(env.projects.every((project) => typeof project.title === "string")).toBe(true);
    }
    const alpha = listing.environments[0]?.projects.flatMap((project) => project.threads) ?? [];
    const byTitle = (title: string) => alpha.find((thread) => thread.title === title);
    expect(byTitle("Long migration run")).toMatchObject({ state: "running", icon: "●" });
    expect(byTitle("Run the test suite?")).toMatchObject({ state: "needs_intervention", icon: "◆" });
    expect(byTitle("Old experiment")).toMatchObject({ settled: true });
    expect(byTitle("Empty draft")).toMatchObject({ state: "no_run", icon: "·" });
    // Pin and snooze are shown, not only settle.
    expect(byTitle("Release checklist")).toMatchObject({ pinned: true });
    expect(byTitle("Revisit the footer")?.snoozedUntil).toEqual(expect.any(String));
    expect(alpha.every((thread) => thread.ageSeconds === null || thread.ageSeconds >= 0)).toBe(true);
    // Archived threads are not listed.
    expect(byTitle("Archived spike")).toBeUndefined();
  });

  it("reports an environment that does not answer without hiding the other", async () => {
    await setup.env("beta").stop();
    const listing = await setup.ops.list();
    expect(listing.environments.map((env) => env.alias)).toEqual(["alpha"]);
    expect(listing.unreachable).toMatchObject([{ alias: "beta" }]);
  });
});

describe("create", () => {
  it("creates one thread for two identical requests, sending nothing the second time", async () => {
    const first = await setup.ops.create("alpha", launch);
    expect(first).toMatchObject({ created: true, confirmation: { present: true } });
    const received = setup.env("alpha").model.receivedCommands.length;
    const second = await setup.ops.create("alpha", launch);
    expect(second).toMatchObject({ created: false, threadId: first.threadId, result: null });
    expect(setup.env("alpha").model.receivedCommands.length).toBe(received);
    const listing = await setup.ops.list();
    const titles = listing.environments[0]?.projects.flatMap((p) => p.threads.map((t) => t.title)) ?? [];
    expect(titles.filter((title) => title === "Footer fix")).toHaveLength(1);
  });

  it("resolves the project by id and by workspace root as well as by title", async () => {
    const projectId = setup.projectId("alpha", "website");
    const byId = await setup.ops.create("alpha", { ...launch, project: projectId, clientRequestId: "by-id" });
    const byRoot = await setup.ops.create("alpha", {
      ...launch,
      project: "/home/sim/code/website",
      clientRequestId: "by-root",
    });
    expect(byId.projectId).toBe(projectId);
    expect(byRoot.projectId).toBe(projectId);
  });

  it("maps --effort to the model's reasoningEffort option and refuses a model the instance does not offer", async () => {
    const withEffort = await setup.ops.create("alpha", {
      ...launch,
      effort: "high",
      clientRequestId: "effort",
    });
    const sent = setup.env("alpha").model.receivedCommands.at(-1)?.payload as {
      modelSelection?: { options?: unknown };
    };
    expect(withEffort.created).toBe(true);
    expect(sent.modelSelection?.options).toEqual([{ id: "reasoningEffort", value: "high" }]);
    const before = setup.env("alpha").model.receivedCommands.length;
    const refused = await connectorFailure(
      setup.ops.create("alpha", { ...launch, model: "no-such-model", clientRequestId: "m" }),
    );
    expect(refused.code).toBe("guard_refused");
    expect(refused.details?.reason).toBe("provider_model_unavailable");
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
  });

  it("refuses bad input and an unknown project with nothing sent", async () => {
    const before = setup.env("alpha").model.receivedCommands.length;
    expect((await connectorFailure(setup.ops.create("alpha", { ...launch, title: "" }))).code).toBe(
      "invalid_input",
    );
    expect((await connectorFailure(setup.ops.create("alpha", { ...launch, project: "nope" }))).code).toBe(
      "not_found",
    );
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
  });
});

describe("thread references", () => {
  it("resolves an id, an exact title, a unique substring and alias:ref", async () => {
    const exact = await setup.ops.resolve("Long migration run", "alpha");
    expect(exact.matchedBy).toBe("title");
    expect((await setup.ops.resolve(exact.thread.id)).matchedBy).toBe("id");
    const part = await setup.ops.resolve("alpha:MIGRATION");
    expect(part).toMatchObject({ matchedBy: "substring", thread: { id: exact.thread.id } });
    // An extra alias names the same environment.
    expect((await setup.ops.resolve("alpha-box:migration")).thread.id).toBe(exact.thread.id);
  });

  it("lists every candidate of an ambiguous reference instead of guessing", async () => {
    await setup.ops.create("alpha", { ...launch, title: "Footer fix one", clientRequestId: "a" });
    await setup.ops.create("alpha", { ...launch, title: "Footer fix two", clientRequestId: "b" });
    const error = await connectorFailure(setup.ops.resolve("footer fix", "alpha"));
    expect(error.code).toBe("ambiguous_thread");
    const candidates = (error.details?.candidates ?? []) as { title: string }[];
    expect(candidates.map((c) => c.title).sort()).toEqual(["Footer fix one", "Footer fix two"]);
  });

  it("is ambiguous across environments when both have the title", async () => {
    const error = await connectorFailure(setup.ops.resolve("Long migration run"));
    expect(error.code).toBe("ambiguous_thread");
    expect(
      ((error.details?.candidates ?? []) as { environment: string }[]).map((c) => c.environment),
    ).toEqual(["alpha", "beta"]);
  });
});

describe("send, settle, act, query", () => {
  it("sends a message once and confirms it by reading the thread", async () => {
    const created = await setup.ops.create("alpha", { ...launch, brief: undefined, clientRequestId: "s" });
    const request = { thread: created.threadId, text: "hello [[sim:reply=hi]]", messageId: "msg-1" };
    const sent = await setup.ops.send("alpha", request);
    expect(sent).toMatchObject({ action: "thread.send", status: "delivered", threadId: created.threadId });
    const received = setup.env("alpha").model.receivedCommands.length;
    const again = await setup.ops.send("alpha", request);
    expect(again.commandId).toBe(sent.commandId);
    expect(again.result).toEqual(sent.result);
    expect(setup.env("alpha").model.receivedCommands.length).toBe(received);
  });

  it("settles an idle thread, and refuses a running thread and one with a pending request", async () => {
    const before = setup.env("alpha").model.receivedCommands.length;
    const running = await connectorFailure(setup.ops.settle("alpha", "Long migration run"));
    expect(running).toMatchObject({ code: "guard_refused", details: { reason: "thread_run_active" } });
    const pending = await connectorFailure(setup.ops.settle("alpha", "Run the test suite?"));
    expect(pending.code).toBe("guard_refused");
    expect(["thread_run_active", "thread_pending_request"]).toContain(pending.details?.reason);
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
    const settled = await setup.ops.settle("alpha", "Empty draft");
    expect(settled).toMatchObject({ settled: true, alreadySettled: false });
    expect(await setup.ops.settle("alpha", "Empty draft")).toMatchObject({
      settled: true,
      alreadySettled: true,
    });
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before + 1);
  });

  it("acts thread.pin, confirms it, and a repeat of the operationId replays T3's receipt", async () => {
    const { thread } = await setup.ops.resolve("Empty draft", "alpha");
    const pinned = await setup.ops.act(
      "alpha",
      "thread.pin",
      { threadId: thread.id },
      { operationId: "pin-1" },
    );
    expect(pinned).toMatchObject({
      action: "thread.pin",
      environment: { alias: "alpha" },
      operationId: "pin-1",
      confirmation: [{ threadId: thread.id, present: true, pinned: true }],
    });
    expect(typeof pinned.result.sequence).toBe("number");
    const received = setup.env("alpha").model.receivedCommands.length;
    const again = await setup.ops.act(
      "alpha",
      "thread.pin",
      { threadId: thread.id },
      { operationId: "pin-1" },
    );
    expect(again.result).toEqual(pinned.result);
    expect(setup.env("alpha").model.receivedCommands.length).toBe(received);
  });

  it("refuses bad action input with the write tools' codes and sends nothing", async () => {
    const before = setup.env("alpha").model.receivedCommands.length;
    const { thread } = await setup.ops.resolve("Empty draft", "alpha");
    const steer = await connectorFailure(
      setup.ops.act(
        "alpha",
        "thread.send",
        { threadId: thread.id, text: "x", clientRequestId: "op", delivery: "steer_active" },
        { operationId: "op" },
      ),
    );
    expect(steer.code).toBe("invalid_input");
    expect(steer.message).toContain("target_run_id_required");
    const mismatch = await connectorFailure(
      setup.ops.act(
        "alpha",
        "thread.send",
        { threadId: thread.id, text: "x", clientRequestId: "other", delivery: "start_immediately" },
        { operationId: "op" },
      ),
    );
    expect(mismatch).toMatchObject({ code: "invalid_input", details: { reason: "request_id_mismatch" } });
    expect(
      (await connectorFailure(setup.ops.act("alpha", "thread.nope", {}, { operationId: "x" }))).code,
    ).toBe("invalid_input");
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
  });

  it("reads one thread by reference with the read tool's detail and says how the reference matched", async () => {
    const read = await setup.ops.thread("run the TEST suite", "alpha");
    expect(read).toMatchObject({
      title: "Run the test suite?",
      state: "needs_intervention",
      matchedBy: "substring",
    });
    expect(Array.isArray(read.pendingRequests)).toBe(true);
  });

  it("queries a thread in one environment with the read tool's output", async () => {
    const { thread } = await setup.ops.resolve("Run the test suite?", "alpha");
    const read = (await setup.ops.query("alpha", "thread", { threadId: thread.id })) as Record<
      string,
      unknown
    >;
    expect(read).toMatchObject({ threadId: thread.id, state: "needs_intervention" });
    expect((await connectorFailure(setup.ops.query("alpha", "nope", {}))).code).toBe("invalid_input");
    expect((await connectorFailure(setup.ops.query("alpha", "thread", { threadId: 3 }))).code).toBe(
      "invalid_input",
    );
  });

  it("lists every catalogue action and every read with kind and description", async () => {
    const entries = await setup.ops.actions();
    expect(entries.filter((e) => e.kind === "action")).toHaveLength(47);
    expect(entries.filter((e) => e.kind === "read").map((e) => e.name)).toContain("thread");
    expect(entries.every((e) => e.description.length > 0)).toBe(true);
  });
});

describe("snooze and interrupt", () => {
  it("snoozes an idle thread until a date and refuses a running one with nothing sent", async () => {
    const until = "2030-01-02T03:04:05+01:00";
    const snoozed = await setup.ops.snooze("alpha", "Empty draft", until);
    expect(snoozed.confirmation[0]?.snoozedUntil).toBe("2030-01-02T02:04:05.000Z");
    const before = setup.env("alpha").model.receivedCommands.length;
    const refused = await connectorFailure(setup.ops.snooze("alpha", "Long migration run", until));
    expect(refused).toMatchObject({ code: "guard_refused", details: { reason: "thread_run_active" } });
    expect((await connectorFailure(setup.ops.snooze("alpha", "Empty draft", "tomorrow"))).code).toBe(
      "invalid_input",
    );
    // A bare date is the usual mistake: the message shows a date-time that works.
    const bareDate = await connectorFailure(setup.ops.snooze("alpha", "Empty draft", "2026-12-04"));
    expect(bareDate.message).toContain("e.g. 2026-12-04T09:00:00+01:00");
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
  });

  it("interrupts the active run, and reports no_active_run without sending for an idle thread", async () => {
    const stopped = await setup.ops.interrupt("alpha", "Long migration run", { operationId: "stop-1" });
    expect(stopped).toMatchObject({ interrupted: true, operation: { action: "run.interrupt" } });
    const before = setup.env("alpha").model.receivedCommands.length;
    expect(await setup.ops.interrupt("alpha", "Empty draft", { operationId: "stop-2" })).toEqual({
      interrupted: false,
      threadId: (await setup.ops.resolve("Empty draft", "alpha")).thread.id,
      reason: "no_active_run",
    });
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
  });
});
