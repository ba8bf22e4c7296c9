import { EXIT_CODES } from "@t3-connector/core/cli-support";
import { describe, expect, it } from "vitest";
import { runOps } from "./support/cli-run.js";
import { connectorFailure } from "./support/connector-failure.js";
import type { SimOps } from "./support/sim-ops.js";
import { useSimOpsPerTest } from "./support/sim-ops-per-test.js";

let setup: SimOps;
let env: Record<string, string>;

useSimOpsPerTest((started) => {
  setup = started;
  env = { T3_CONNECTOR_OPS_CONFIG: started.configPath };
});

/** A fresh idle thread in alpha on codex / gpt-5.6-sol with effort low. */
async function freshThread(title = "Configure me") {
  const created = await setup.ops.create("alpha", {
    project: "website",
    title,
    instance: "codex",
    model: "gpt-5.6-sol",
    effort: "low",
    clientRequestId: `fresh-${title}`,
  });
  return created.threadId;
}

const sent = () => setup.env("alpha").model.receivedCommands.length;

describe("configure", () => {
  it("changes model, effort and modes on the same instance, confirmed by reading the thread back", async () => {
    const threadId = await freshThread();
    const result = await setup.ops.configure("alpha", threadId, {
      model: "gpt-5.6-luna",
      effort: "high",
      runtimeMode: "approval-required",
      interactionMode: "plan",
      operationId: "cfg-1",
    });
    expect(result.commands.map((c) => c.action)).toEqual([
      "thread.model-selection.set",
      "thread.runtime-mode.set",
      "thread.interaction-mode.set",
    ]);
    expect(result.before.modelSelection).toMatchObject({ instanceId: "codex", model: "gpt-5.6-sol" });
    expect(result.after).toEqual({
      modelSelection: {
        instanceId: "codex",
        model: "gpt-5.6-luna",
        options: [{ id: "reasoningEffort", value: "high" }],
      },
      runtimeMode: "approval-required",
      interactionMode: "plan",
    });
  });

  it("keeps the current model and its other options when only the effort changes", async () => {
    const threadId = await freshThread();
    await setup.ops.configure("alpha", threadId, { effort: "low", operationId: "opt-0" });
    const result = await setup.ops.configure("alpha", threadId, { effort: "xhigh", operationId: "opt-1" });
    expect(result.after.modelSelection).toEqual({
      instanceId: "codex",
      model: "gpt-5.6-sol",
      options: [{ id: "reasoningEffort", value: "xhigh" }],
    });
  });

  it("sets a model option with --option, keeping the effort, and refuses an option value the model lacks", async () => {
    const threadId = await freshThread();
    const run = await runOps(
      ["alpha", "configure", threadId, "--option", "fastMode=true", "--operation-id", "fast-1"],
      { env },
    );
    expect(run.code, run.stderr).toBe(EXIT_CODES.ok);
    expect((run.json() as { after: unknown }).after).toMatchObject({
      modelSelection: {
        instanceId: "codex",
        model: "gpt-5.6-sol",
        options: [
          { id: "reasoningEffort", value: "low" },
          { id: "fastMode", value: true },
        ],
      },
    });
    const before = sent();
    const bad = await runOps(
      ["alpha", "configure", threadId, "--option", "reasoningEffort=ludicrous", "--operation-id", "fast-2"],
      { env },
    );
    expect(bad.code).toBe(EXIT_CODES.refused);
    expect(bad.stderr).toMatch(/^t3-connector-ops: guard_refused: /);
    expect(sent()).toBe(before);
  });

  it("moves the thread to another instance with provider.switch", async () => {
    const threadId = await freshThread();
    const result = await setup.ops.configure("alpha", threadId, {
      instance: "claudeAgent",
      model: "claude-opus-5",
      effort: "max",
      operationId: "switch-1",
    });
    expect(result.commands.map((c) => c.action)).toEqual(["provider.switch"]);
    expect(result.after.modelSelection).toEqual({
      instanceId: "claudeAgent",
      model: "claude-opus-5",
      options: [{ id: "effort", value: "max" }],
    });
  });

  it("sends nothing on a repeat that already reads back, even after a provider.switch", async () => {
    const threadId = await freshThread();
    const request = {
      instance: "claudeAgent",
      model: "claude-fable-5",
      runtimeMode: "auto-accept-edits",
      operationId: "repeat-1",
    };
    const first = await setup.ops.configure("alpha", threadId, request);
    expect(first.commands.map((c) => c.action)).toEqual(["provider.switch", "thread.runtime-mode.set"]);
    const received = sent();
    const second = await setup.ops.configure("alpha", threadId, request);
    expect(second.commands).toEqual([]);
    expect(second.skipped).toEqual(["thread.model-selection.set", "thread.runtime-mode.set"]);
    expect(second.after).toEqual(first.after);
    expect(sent()).toBe(received);
  });

  it("derives every command id from the operation id, so a resend replays T3's receipt", async () => {
    const threadId = await freshThread();
    const first = await setup.ops.configure("alpha", threadId, { runtimeMode: "auto", operationId: "ids-1" });
    // The same operation sent again through act (the configuration read back already, so
    // configure itself would skip it): T3 answers with the receipt it stored.
    const received = sent();
    const again = await setup.ops.act(
      "alpha",
      "thread.runtime-mode.set",
      { threadId, runtimeMode: "auto" },
      { operationId: "ids-1" },
    );
    expect(again.commandId).toBe(first.commands[0]?.commandId);
    expect(again.result).toEqual(first.commands[0]?.result);
    expect(sent()).toBe(received);
  });

  it("refuses a model the instance does not offer, an unknown mode and an empty request, sending nothing", async () => {
    const threadId = await freshThread();
    const before = sent();
    const unoffered = await connectorFailure(
      setup.ops.configure("alpha", threadId, { model: "gpt-0-imaginary", operationId: "bad-1" }),
    );
    expect(unoffered).toMatchObject({ code: "guard_refused" });
    const noEffort = await connectorFailure(
      setup.ops.configure("alpha", threadId, {
        instance: "grok",
        model: "grok-build",
        effort: "high",
        operationId: "bad-2",
      }),
    );
    expect(noEffort).toMatchObject({ code: "guard_refused" });
    const badMode = await connectorFailure(
      setup.ops.configure("alpha", threadId, {
        model: "gpt-5.6-luna",
        runtimeMode: "yolo",
        operationId: "bad-3",
      }),
    );
    expect(badMode).toMatchObject({ code: "invalid_input" });
    const empty = await connectorFailure(setup.ops.configure("alpha", threadId, { operationId: "bad-4" }));
    expect(empty).toMatchObject({ code: "invalid_input" });
    expect(sent()).toBe(before);
  });

  it("prints JSON from the CLI and documents an example in --help", async () => {
    const threadId = await freshThread();
    const run = await runOps(
      ["alpha", "configure", threadId, "--interaction-mode", "plan", "--operation-id", "cli-1"],
      { env },
    );
    expect(run.code).toBe(EXIT_CODES.ok);
    expect(run.json()).toMatchObject({ threadId, after: { interactionMode: "plan" } });
    const help = await runOps(["configure", "--help"], { env });
    expect(help.stdout).toContain("t3-connector-ops configure alpha:parser");
  });
});

describe("one-environment reads over the read tools", () => {
  type Listed = { threads: { threadId: string; title: string; project: { projectId: string | null } }[] };

  it("list filters by a project named by title, exactly as query threads returns it", async () => {
    const projectId = setup.projectId("alpha", "website");
    const listed = (await setup.ops.threads("alpha", { project: "website", includeNoRun: true })) as Listed;
    expect(listed.threads.length).toBeGreaterThan(0);
    expect(listed.threads.every((thread) => thread.project.projectId === projectId)).toBe(true);
    const queried = await setup.ops.query("alpha", "threads", { projectId, includeNoRun: true });
    expect(listed).toEqual(queried);
  });

  it("projects, providers, read and timeline print what the matching query prints", async () => {
    const threadId = await freshThread("Timeline thread");
    const cases: [string[], string, Record<string, unknown>][] = [
      [["alpha", "projects"], "projects", {}],
      [["alpha", "providers"], "providers", {}],
      [["alpha", "list", "--search", "Timeline"], "threads", { search: "Timeline" }],
      [["read", `alpha:${threadId}`], "thread", { threadId }],
      [["alpha", "timeline", "Timeline thread", "--limit", "5"], "messages", { threadId, limit: 5 }],
    ];
    for (const [argv, query, input] of cases) {
      const run = await runOps(argv, { env });
      expect(run.code, `${argv.join(" ")}: ${run.stderr}`).toBe(EXIT_CODES.ok);
      const printed = run.json() as Record<string, unknown>;
      const expected = (await setup.ops.query("alpha", query, input)) as Record<string, unknown>;
      if (query === "thread") delete printed.matchedBy;
      // generatedAt-like clocks aside, the documents are the read tools' own.
      expect(Object.keys(printed).sort()).toEqual(Object.keys(expected).sort());
      if (query === "projects") expect(printed).toEqual(expected);
    }
    const timeline = (await runOps(["timeline", `alpha:${threadId}`], { env })).json() as {
      threadId: string;
      messages: { text: string }[];
    };
    expect(timeline.threadId).toBe(threadId);
    // A thread that never ran is listed only on request, as t3_threads decides.
    const listed = (
      await runOps(["alpha", "list", "--search", "Timeline", "--include-no-run"], { env })
    ).json() as Listed;
    expect(listed.threads.map((thread) => thread.threadId)).toEqual([threadId]);
  });

  it("refuses a bad filter before reading: an unknown state, a non-integer limit, no environment", async () => {
    const state = await runOps(["alpha", "list", "--state", "sleeping"], { env });
    expect(state.code).toBe(EXIT_CODES.usage);
    expect(state.stderr).toMatch(/^t3-connector-ops: invalid_input: state/);
    const limit = await runOps(["alpha", "list", "--limit", "many"], { env });
    expect(limit.code).toBe(EXIT_CODES.usage);
    expect(limit.stderr).toMatch(/^t3-connector-ops: invalid_input: --limit needs an integer/);
    const noEnv = await runOps(["projects"], { env });
    expect(noEnv.stderr).toMatch(/^t3-connector-ops: environment_required:/);
    const help = await runOps(["list", "--help"], { env });
    expect(help.stdout).toContain("t3-connector-ops alpha list --project website");
  });
});

describe("organize", () => {
  it("pins, renames, archives and unarchives a thread, each read back", async () => {
    const threadId = await freshThread("Organize me");
    const pinned = await setup.ops.organize("alpha", threadId, { kind: "pin" }, { operationId: "o-pin" });
    expect(pinned.operation.confirmation[0]).toMatchObject({ pinned: true });
    const renamed = await setup.ops.organize(
      "alpha",
      "Organize me",
      { kind: "title", title: "Organized" },
      { operationId: "o-title" },
    );
    expect(renamed).toMatchObject({ change: "title", title: "Organized" });
    const archived = await setup.ops.organize(
      "alpha",
      threadId,
      { kind: "archive" },
      { operationId: "o-arch" },
    );
    expect(archived.operation.confirmation[0]).toMatchObject({ present: true, archived: true });
    const back = await setup.ops.organize(
      "alpha",
      threadId,
      { kind: "unarchive" },
      { operationId: "o-back" },
    );
    expect(back.operation.confirmation[0]).toMatchObject({ present: true, archived: false, pinned: true });
    const read = (await setup.ops.thread(threadId, "alpha")) as { title: string };
    expect(read.title).toBe("Organized");
  });

  it("replays T3's receipt for a repeated operation id", async () => {
    const threadId = await freshThread("Pin twice");
    const first = await setup.ops.organize("alpha", threadId, { kind: "pin" }, { operationId: "twice" });
    const second = await setup.ops.organize("alpha", threadId, { kind: "pin" }, { operationId: "twice" });
    expect(second.operation.commandId).toBe(first.operation.commandId);
    expect(second.operation.result).toEqual(first.operation.result);
  });

  it("refuses no change, two changes and an empty title from the CLI, sending nothing", async () => {
    const threadId = await freshThread("Bad organize");
    const before = sent();
    const none = await runOps(["alpha", "organize", threadId, "--operation-id", "x"], { env });
    const two = await runOps(["alpha", "organize", threadId, "--pin", "--archive", "--operation-id", "x"], {
      env,
    });
    const empty = await runOps(["alpha", "organize", threadId, "--title", "", "--operation-id", "x"], {
      env,
    });
    for (const run of [none, two, empty]) {
      expect(run.code).toBe(EXIT_CODES.usage);
      expect(run.stderr).toMatch(/^t3-connector-ops: invalid_input: /);
    }
    expect(sent()).toBe(before);
    const ok = await runOps(["alpha", "organize", threadId, "--pin", "--operation-id", "cli-pin"], { env });
    expect(ok.code).toBe(EXIT_CODES.ok);
    expect(ok.json()).toMatchObject({ threadId, change: "pin" });
    const help = await runOps(["organize", "--help"], { env });
    expect(help.stdout).toContain("t3-connector-ops organize alpha:parser --pin");
  });
});

describe("ls --settled and --archived", () => {
  const titles = (listing: Awaited<ReturnType<SimOps["ops"]["list"]>>, alias = "alpha") =>
    listing.environments
      .find((environment) => environment.alias === alias)
      ?.projects.flatMap((project) => project.threads.map((thread) => thread.title)) ?? [];

  it("lists only the settled threads, only the archived ones, or either", async () => {
    const active = await setup.ops.list();
    expect(active.showing).toBe("active");
    expect(titles(active)).not.toContain("Archived spike");

    const settled = await setup.ops.list({ settled: true });
    expect(settled.showing).toBe("settled");
    expect(titles(settled)).toContain("Old experiment");
    expect(
      settled.environments.flatMap((e) => e.projects.flatMap((p) => p.threads)).every((t) => t.settled),
    ).toBe(true);

    const archived = await setup.ops.list({ archived: true });
    expect(titles(archived)).toEqual(["Archived spike"]);

    const either = await setup.ops.list({ settled: true, archived: true });
    expect(titles(either).sort()).toEqual([...titles(settled), "Archived spike"].sort());
  });

  it("shows a thread archived through organize under --archived and not in the active list", async () => {
    const threadId = await freshThread("Soon archived");
    await setup.ops.organize("alpha", threadId, { kind: "archive" }, { operationId: "ls-arch" });
    const run = await runOps(["ls", "--archived"], { env });
    expect(run.code).toBe(EXIT_CODES.ok);
    const listing = run.json() as Awaited<ReturnType<SimOps["ops"]["list"]>>;
    expect(titles(listing)).toContain("Soon archived");
    expect(titles(await setup.ops.list())).not.toContain("Soon archived");
    const table = await runOps(["ls", "--archived"], { env, tty: true });
    expect(table.stdout).toContain("Soon archived");
  });
});
