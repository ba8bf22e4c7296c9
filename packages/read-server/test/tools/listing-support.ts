import type { FanOutDeadlines } from "@t3-connector/core/fanout";
import { type SimEnvironment, startSimulator } from "@t3-connector/t3-sim";
import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterEach, beforeEach } from "vitest";
import type { ReadLimits } from "../../src/read-context.js";
import type { ReadToolDefinition } from "../../src/read-tool.js";

/** Fixed ids so that the environmentId order (alpha before beta) is known to the assertions. */
export const ALPHA_ID = "env-alpha";
export const BETA_ID = "env-beta";

const ENVIRONMENTS = [
  { alias: "alpha", environmentId: ALPHA_ID, label: "Alpha laptop", seed: "demo" },
  { alias: "beta", environmentId: BETA_ID, label: "Beta server", seed: "demo" },
] as const;

/**
 * The demo seed's project ids per alias and title. Simulator ids come from a per-environment
 * counter, so a throw-away simulator with the same environments yields the ids the test's own
 * simulator will have; that is how a test writes an ACL (fixed at start-up) naming real projects.
 */
export async function demoProjectIds(): Promise<Record<string, Record<string, string>>> {
  const sim = await startSimulator({ environments: ENVIRONMENTS });
  try {
    const ids: Record<string, Record<string, string>> = {};
    for (const env of sim.environments) {
      ids[env.alias] = Object.fromEntries([...env.model.store.projects.values()].map((p) => [p.title, p.id]));
    }
    return ids;
  } finally {
    await sim.close();
  }
}

/**
 * An ACL allowing every demo project plus `extra` ids per alias: projects a test adds later with
 * a fixed id (the ACL is read at start-up, so an added project is otherwise not authorized).
 */
export async function demoAclWith(extra: Record<string, string[]>): Promise<Record<string, string[]>> {
  const ids = await demoProjectIds();
  return Object.fromEntries(
    Object.entries(ids).map(([alias, byTitle]) => [
      alias,
      [...Object.values(byTitle), ...(extra[alias] ?? [])],
    ]),
  );
}

/** Two simulated environments with the demo seed, read through `definitions`. */
export function startTwoEnvironments(
  definitions: readonly ReadToolDefinition[],
  options: {
    allowedProjects?: Record<string, string[]>;
    limits?: Partial<ReadLimits>;
    deadlines?: FanOutDeadlines;
  } = {},
): Promise<SimReadSetup> {
  return startSimRead({
    simulator: { environments: ENVIRONMENTS },
    definitions,
    ...(options.allowedProjects ? { allowedProjects: options.allowedProjects } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
  });
}

type TwoEnvironmentsOptions = Parameters<typeof startTwoEnvironments>[1];

/**
 * Registers, for each test of the enclosing describe, the two demo environments read through
 * `definitions`, closed after it (each test may change them); `options` is worked out per test,
 * and `ready` hands the setup to the describe's own variable.
 */
export function useTwoEnvironments(
  definitions: readonly ReadToolDefinition[],
  ready: (setup: SimReadSetup) => void,
  options: () => TwoEnvironmentsOptions | Promise<TwoEnvironmentsOptions> = () => ({}),
): void {
  let setup: SimReadSetup | undefined;
  beforeEach(async () => {
    setup = await startTwoEnvironments(definitions, await options());
    ready(setup);
  });
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });
}

/**
 * useTwoEnvironments with deadlines that expire only when a test expires them, so that no
 * environment misses one on a loaded machine.
 */
export function useTwoEnvironmentsOnManualDeadlines(
  definitions: readonly ReadToolDefinition[],
  ready: (started: { setup: SimReadSetup; deadlines: ManualDeadlines }) => void,
): void {
  let deadlines = new ManualDeadlines();
  useTwoEnvironments(
    definitions,
    (setup) => ready({ setup, deadlines }),
    () => {
      deadlines = new ManualDeadlines();
      return { deadlines };
    },
  );
}

/**
 * useTwoEnvironments with alpha's ACL narrowed to the demo projects titled `alphaProjects` (beta
 * shows everything); `ready` also gets the demo project ids per alias and title.
 */
export function useTwoEnvironmentsWithAlphaAcl(
  definitions: readonly ReadToolDefinition[],
  alphaProjects: readonly string[],
  ready: (started: { setup: SimReadSetup; ids: Record<string, Record<string, string>> }) => void,
): void {
  let ids: Record<string, Record<string, string>> = {};
  useTwoEnvironments(
    definitions,
    (setup) => ready({ setup, ids }),
    async () => {
      ids = await demoProjectIds();
      const alpha = ids.alpha ?? {};
      return { allowedProjects: { alpha: alphaProjects.map((title) => alpha[title] ?? "") } };
    },
  );
}

/** The JSON-RPC error of a call the SDK refused before any handler ran. */
/** The tool error a bad argument gets (`isError: true`, ADR 0004); the handler never runs. */
export function invalidInput(setup: SimReadSetup, name: string, args: Record<string, unknown>) {
  return toolInputError(setup.client, name, args);
}

export function projectIdByTitle(env: SimEnvironment, title: string): string {
  for (const project of env.model.store.projects.values()) if (project.title === title) return project.id;
  throw new Error(`no project titled ${title} in ${env.alias}`);
}

export function threadIdByTitle(env: SimEnvironment, title: string): string {
  for (const record of env.model.store.threads.values())
    if (record.thread.title === title) return record.thread.id;
  throw new Error(`no thread titled ${title} in ${env.alias}`);
}

/**
 * Makes `env` answer like an older T3 for one thread: its shell row no longer carries the shared
 * visited watermark, so the woke marker cannot be decided there (`woke: null`).
 */
export function dropVisitedWatermark(env: SimEnvironment, threadId: string): void {
  const record = env.model.store.threads.get(threadId);
  if (!record) throw new Error(`no thread ${threadId}`);
  delete (record.thread as { lastVisitedAt?: unknown }).lastVisitedAt;
}

/**
 * Makes `env`'s shell report a background task on one thread, as newer T3 builds publish them in
 * `pendingBackgroundTasks` (the simulator always sends an empty list). The real shell is still
 * built and served by the simulator; only that one row gains the task.
 */
export function publishBackgroundTask(
  env: SimEnvironment,
  threadId: string,
  task: { taskId: string; description: string; taskType: string },
): void {
  const model = env.model;
  const serveShell = model.httpShell.bind(model);
  model.httpShell = () => {
    const outcome = serveShell();
    if (outcome.kind !== "ok") return outcome;
    const body = outcome.body as { threads: Array<{ id: string; pendingBackgroundTasks?: unknown[] }> };
    for (const row of body.threads) if (row.id === threadId) row.pendingBackgroundTasks = [task];
    return outcome;
  };
}

/** Resolves once the environment has swallowed a request under the `hang` fault. */
export function nextHeld(env: SimEnvironment): Promise<void> {
  return new Promise((resolve) => {
    const stop = env.faults.onHeld(() => {
      stop();
      resolve();
    });
  });
}

export type Item = Record<string, unknown> & {
  environment: { alias: string; environmentId: string; name: string | null };
};

export function itemsOf(result: Record<string, unknown>, key: string): Item[] {
  return result[key] as Item[];
}
