/**
 * For each of the 47 actions: puts a simulator environment into a state where the action's
 * SAMPLE_INPUTS apply, and returns the input to send. Thread, project and run ids are the samples'
 * own (the simulator names runs `run:thread:<id>:ordinal:<n>` like T3). Ids that only the server
 * mints (runtime request, provider session, checkpoint, delegated task) cannot be chosen through
 * the control API, so those few fields are replaced by the ids the seeded state really holds;
 * every other field is the sample's.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SimEnvironment } from "@t3-connector/t3-sim";
import { ACTION_IDS, type ActionId, SAMPLE_IDS, SAMPLE_INPUTS } from "@t3-connector/write-engine/actions";

type ThreadSpec = Parameters<SimEnvironment["model"]["addThread"]>[0];

const T = SAMPLE_IDS.threadId;
const T2 = SAMPLE_IDS.otherThreadId;
const P = SAMPLE_IDS.projectId;

function thread(env: SimEnvironment, spec: Omit<ThreadSpec, "projectId"> = {}, id: string = T): void {
  env.model.addThread({ id, projectId: P, ...spec });
}

/** A seeding command straight into the model (it lands in receivedCommands before the test's count). */
async function seedCommand(env: SimEnvironment, command: Record<string, unknown>): Promise<void> {
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: randomUUID(),
    ...command,
  });
  if (outcome.kind !== "success")
    throw new Error(`seeding ${String(command.type)} failed: ${JSON.stringify(outcome)}`);
}

function projection(env: SimEnvironment, threadId = T): Record<string, unknown> {
  const inspected = env.model.getThread(threadId);
  if (inspected === undefined) throw new Error(`no seeded thread ${threadId}`);
  return inspected.projection;
}

function rows(env: SimEnvironment, field: string): Record<string, unknown>[] {
  const value = projection(env)[field];
  return Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
}

function pendingRequestId(env: SimEnvironment): string {
  const request = rows(env, "runtimeRequests").find((row) => row.status === "pending");
  if (typeof request?.id !== "string") throw new Error("the seeded thread has no pending request");
  return request.id;
}

const PROVENANCE = { createdBy: "user", creationSource: "web" } as const;

type Seeder = (env: SimEnvironment) => Promise<Record<string, unknown>> | Record<string, unknown>;

function inState(spec: Omit<ThreadSpec, "projectId">): Seeder {
  return (env) => {
    thread(env, spec);
    return {};
  };
}

const idle = inState({ state: "completed" });

/**
 * The allowed project folder of a walk (ADR 0074): an environment that runs project.create must
 * list it in its `projectRoots`; the sample's folder is replaced by a new one under it.
 */
export const WALK_PROJECT_ROOT = realpathSync(mkdtempSync(join(tmpdir(), "t3c-walk-projects-")));

const SEEDERS: Record<ActionId, Seeder> = {
  "thread.archive": idle,
  "thread.unarchive": inState({ state: "completed", archived: true }),
  "thread.delete": idle,
  "thread.settle": idle,
  "thread.pin": idle,
  "thread.unpin": inState({ state: "completed", pinned: true }),
  "thread.unsnooze": inState({ state: "completed", snoozedUntil: "2099-01-01T00:00:00.000Z" }),
  "thread.mark-unread": inState({ state: "completed", lastVisitedAt: "updated" }),
  "thread.unsettle": inState({ state: "completed", settled: true }),
  "thread.snooze": idle,
  "thread.auto-settle.set": idle,
  "thread.pin.reorder": inState({ state: "completed", pinned: true }),
  "thread.active.reorder": idle,
  "thread.visit": idle,
  "thread.title": idle,
  "thread.runtime-mode.set": idle,
  "thread.interaction-mode.set": idle,
  // model-selection.set keeps the provider instance: the thread must already be on claudeAgent.
  "thread.model-selection.set": (env) => {
    thread(env, {
      state: "completed",
      modelSelection: { instanceId: "claudeAgent", model: "claude-fable-5" },
    });
    return {};
  },
  "provider.switch": idle,
  "provider-session.detach": (env) => {
    thread(env, { state: "completed" });
    const session = rows(env, "providerSessions")[0];
    if (typeof session?.id !== "string") throw new Error("the seeded thread has no provider session");
    return { providerSessionId: session.id };
  },
  "run.interrupt": inState({ state: "running" }),
  "prepared-run.release": async (env) => {
    thread(env);
    await seedCommand(env, {
      type: "message.dispatch",
      ...PROVENANCE,
      threadId: T,
      messageId: randomUUID(),
      text: "Prepare first.",
      attachments: [],
      dispatchMode: { type: "defer_start" },
    });
    return {};
  },
  "prepared-run.retry": inState({ state: "preparation_failed" }),
  "queue.resume": async (env) => {
    thread(env, { state: "queued" });
    await seedCommand(env, { type: "run.interrupt", threadId: T, runId: SAMPLE_IDS.runId, holdQueue: true });
    return {};
  },
  "queued-run.cancel": inState({ state: "queued" }),
  "queued-run.reorder": inState({ state: "queued" }),
  "queued-run.edit": inState({ state: "queued" }),
  "queued-message.promote-to-steer": inState({ state: "queued" }),
  "runtime-request.approve": (env) => {
    thread(env, { state: "waiting_approval" });
    return { requestId: pendingRequestId(env) };
  },
  "runtime-request.answer": (env) => {
    thread(env, { state: "waiting_user_input" });
    return { requestId: pendingRequestId(env) };
  },
  "thread.user-input.dismiss": (env) => {
    env.model.scriptNextRun(T, { ask: { responseMode: "message" } });
    thread(env, { state: "waiting_user_input" });
    return { requestId: pendingRequestId(env) };
  },
  "checkpoint.rollback": (env) => {
    thread(env, { state: "completed" });
    const checkpoint = rows(env, "checkpoints")[0];
    if (typeof checkpoint?.id !== "string" || typeof checkpoint.scopeId !== "string") {
      throw new Error("the seeded thread has no checkpoint");
    }
    return { scopeId: checkpoint.scopeId, checkpointId: checkpoint.id };
  },
  "thread.launch": () => ({}),
  "thread.send": inState({ state: "running" }),
  "thread.metadata.update": idle,
  "thread.pull-request.link": idle,
  "thread.pull-request.unlink": async (env) => {
    thread(env, { state: "completed" });
    const { threadId: _threadId, ...link } = SAMPLE_INPUTS["thread.pull-request.link"];
    await seedCommand(env, { type: "thread.pull-request.link", threadId: T, ...link });
    return {};
  },
  "thread.pull-request.watch": idle,
  "thread.fork": idle,
  "thread.merge_back": (env) => {
    thread(env, { state: "completed" });
    thread(env, { state: "completed" }, T2);
    return {};
  },
  "delegated_task.request": inState({ state: "running" }),
  "delegated_task.wake-policy": (env) => delegatedTask(env),
  "delegated_task.completion-delivery.acknowledge": (env) => delegatedTask(env),
  "delegated_task.completion-delivery.dispose": (env) => delegatedTask(env),
  "project.create": () => ({ workspaceRoot: join(WALK_PROJECT_ROOT, randomUUID()) }),
  // The sample project every walk environment holds, with no thread in it.
  "project.meta.update": () => ({}),
  "project.delete": () => ({}),
};

async function delegatedTask(env: SimEnvironment): Promise<Record<string, unknown>> {
  thread(env, { state: "running" });
  await seedCommand(env, {
    type: "delegated_task.request",
    createdBy: "user",
    creationSource: "mcp",
    parentThreadId: T,
    parentRunId: SAMPLE_IDS.runId,
    parentNodeId: "node-1",
    task: "Seeded task.",
    modelSelection: { instanceId: "codex", model: "gpt-5.6-sol-mini" },
    runtimeMode: "full-access",
    interactionMode: "default",
  });
  const task = rows(env, "subagents")[0];
  if (typeof task?.id !== "string") throw new Error("the seeded thread has no delegated task");
  return { taskId: task.id };
}

/** Seeds `env` for `action` and returns the input to dispatch (the sample plus minted ids). */
export async function seedForAction(env: SimEnvironment, action: ActionId): Promise<Record<string, unknown>> {
  const overrides = await SEEDERS[action](env);
  return { ...SAMPLE_INPUTS[action], ...overrides };
}

/** The alias of the simulated environment that holds `action`'s seeded state (one per action). */
export const aliasOf = (action: ActionId): string => `a${ACTION_IDS.indexOf(action)}`;
