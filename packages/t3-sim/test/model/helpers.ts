/** Shared helpers for the model tests: a manual clock, fixture loading and shape comparison. */
import { readRealFixture } from "@t3-connector/test-support/real-fixtures";
import { SimClock } from "../../src/clock.js";
import type { RpcOutcome, StreamSink } from "../../src/model/contract.js";
import {
  createEnvironmentModel,
  type EnvironmentModelOptions,
  type SimEnvironmentModel,
} from "../../src/model/index.js";

// biome-ignore lint/suspicious/noExplicitAny: fixtures and wire JSON are untyped; tests read them freely.
export type Json = any;

export function fixture(name: string): Json {
  return readRealFixture(name);
}

/** The value of the first received `Exit` frame of a ws fixture. */
export function fixtureExit(name: string): Json {
  const frames = fixture(name).response.ws_frames_received as { frame: Json }[];
  return frames.find((f) => f.frame._tag === "Exit")?.frame.exit;
}

export function makeModel(overrides: Partial<EnvironmentModelOptions> = {}): {
  model: SimEnvironmentModel;
  clock: SimClock;
} {
  const clock = new SimClock({ mode: "manual", startAt: Date.parse("2026-12-02T13:00:00.000Z") });
  const model = createEnvironmentModel({
    environmentId: "env-test",
    label: "test",
    clock,
    seed: "empty",
    workspaceRootExists: (path) => !path.includes("missing"),
    ...overrides,
  });
  return { model, clock };
}

/** A model with one project and one idle thread, for command tests. */
export function withThread(overrides: Partial<EnvironmentModelOptions> = {}) {
  const made = makeModel(overrides);
  const project = made.model.addProject({
    id: "project-1",
    title: "fixtures",
    workspaceRoot: "/home/dev/code/fixtures",
  });
  const threadId = made.model.addThread({ id: "thread-1", projectId: project.id, title: "fixture thread" });
  return { ...made, project, threadId };
}

let counter = 0;
export const cid = (): string => `cmd-${++counter}`;

export async function dispatch(
  model: SimEnvironmentModel,
  command: Record<string, unknown>,
): Promise<RpcOutcome> {
  return model.callUnary("orchestration.dispatchCommand", { commandId: cid(), ...command });
}

export async function send(
  model: SimEnvironmentModel,
  threadId: string,
  text: string,
  dispatchMode: Record<string, unknown> = { type: "start_immediately" },
): Promise<RpcOutcome> {
  return dispatch(model, {
    type: "message.dispatch",
    threadId,
    messageId: `msg-${++counter}`,
    text,
    attachments: [],
    createdBy: "user",
    creationSource: "mcp",
    dispatchMode,
  });
}

/**
 * A parent run left hanging, so that it stays active, asking for the delegated task every
 * subagent test starts from ("Summarise the changelog" on claude-fable-5); answers the parent run.
 */
export async function requestDelegatedTask(
  made: { model: SimEnvironmentModel; clock: SimClock; threadId: string },
  runtimeMode: string,
): Promise<Json> {
  const { model, clock, threadId } = made;
  await send(model, threadId, "parent [[sim:hang]]");
  clock.advance(100);
  const parentRun: Json = projectionOf(model, threadId).runs[0];
  await dispatch(model, {
    type: "delegated_task.request",
    createdBy: "agent",
    creationSource: "mcp",
    parentThreadId: threadId,
    parentRunId: parentRun.id,
    parentNodeId: parentRun.rootNodeId,
    task: "Summarise the changelog",
    modelSelection: { instanceId: "claudeAgent", model: "claude-fable-5" },
    runtimeMode,
    interactionMode: "default",
  });
  return parentRun;
}

export function sequenceOf(outcome: RpcOutcome): number {
  if (outcome.kind !== "success") throw new Error(`expected success, got ${JSON.stringify(outcome)}`);
  return (outcome.value as { sequence: number }).sequence;
}

/** Records every emit and the end outcome. */
export class CaptureSink implements StreamSink {
  readonly emits: unknown[][] = [];
  ended: unknown = undefined;
  emit(values: readonly unknown[]): void {
    this.emits.push([...values]);
  }
  end(outcome?: unknown): void {
    this.ended = outcome ?? "success";
  }
  get items(): Json[] {
    return this.emits.flat();
  }
}

/** A structural signature: key sets and value types, recursively (arrays by their first element). */
export function shapeOf(value: unknown): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "array" : ["array", shapeOf(value[0])];
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort())
      out[key] = shapeOf((value as Record<string, unknown>)[key]);
    return out;
  }
  return typeof value;
}

/** The shell row of a thread (throws when the thread does not exist). */
export function shellOf(model: SimEnvironmentModel, threadId: string): Json {
  const inspection = model.getThread(threadId);
  if (!inspection) throw new Error(`no thread ${threadId}`);
  return inspection.shell;
}

/** The full projection of a thread (throws when the thread does not exist). */
export function projectionOf(model: SimEnvironmentModel, threadId: string): Json {
  const inspection = model.getThread(threadId);
  if (!inspection) throw new Error(`no thread ${threadId}`);
  return inspection.projection;
}

/** Sorted key list of an object (for comparing rows whose values may be null in one capture). */
export const keysOf = (value: unknown): string[] => Object.keys(value as object).sort();
