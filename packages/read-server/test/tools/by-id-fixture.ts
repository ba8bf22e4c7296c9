import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { FanOutDeadlines } from "@t3-connector/core/fanout";
import type { SimEnvironmentModel } from "@t3-connector/t3-sim";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import type { ReadLimits } from "../../src/read-context.js";
import type { ReadToolDefinition } from "../../src/read-tool.js";

/**
 * Two simulated environments with known ids, shared by the by-id tool tests:
 *
 * alpha: project p-main (allowed) and p-hidden (outside the ACL)
 *   t-question (waiting on a user_input question), t-approval (waiting on a command approval),
 *   t-queued (a run queued behind the active one), t-long (completed with a long reply),
 *   t-archived (archived, completed), t-hidden (in p-hidden), t-shared
 * beta: project p-beta (allowed): t-beta, t-shared (the same id as in alpha)
 */
export const LONG_REPLY_END = "and that is THE-END.";
export const LONG_REPLY = `${"The start of a long reply. ".repeat(60)}${LONG_REPLY_END}`;

const MINUTE = 60_000;

export interface ByIdSetupOptions {
  limits?: Partial<ReadLimits>;
  /** Where the read deadlines come from; default real timers. */
  deadlines?: FanOutDeadlines;
  /** Adds a third, empty environment "gamma" (project p-gamma), e.g. to hang while two answer. */
  gamma?: boolean;
  /** Plays alpha and beta as an older T3 build (e.g. `{ compat: "0.0.31" }`), default protocol 2. */
  profile?: { compat: "0.0.31"; webBuild?: boolean };
}

export async function startByIdSetup(
  definitions: readonly ReadToolDefinition[],
  options: ByIdSetupOptions = {},
): Promise<SimReadSetup> {
  const gamma = options.gamma === true;
  const setup = await startSimRead({
    simulator: {
      environments: [
        { alias: "alpha", environmentId: "env-alpha", seed: "empty", ...options.profile },
        { alias: "beta", environmentId: "env-beta", seed: "empty", ...options.profile },
        ...(gamma ? [{ alias: "gamma", environmentId: "env-gamma", seed: "empty" as const }] : []),
      ],
    },
    definitions,
    allowedProjects: { alpha: ["p-main"], beta: ["p-beta"], ...(gamma ? { gamma: ["p-gamma"] } : {}) },
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
  });
  const past = Date.now() - 30 * MINUTE;
  const alpha = setup.sim.environment("alpha").model;
  alpha.addProject({ id: "p-main", title: "main", workspaceRoot: "/home/sim/code/main" });
  alpha.addProject({ id: "p-hidden", title: "hidden", workspaceRoot: "/home/sim/code/hidden" });
  alpha.addThread({
    id: "t-question",
    projectId: "p-main",
    title: "Choose scope",
    state: "waiting_user_input",
    at: past,
  });
  alpha.addThread({
    id: "t-approval",
    projectId: "p-main",
    title: "Run tests?",
    state: "waiting_approval",
    at: past,
  });
  alpha.addThread({ id: "t-queued", projectId: "p-main", title: "Docs rewrite", state: "queued", at: past });
  alpha.addThread({
    id: "t-long",
    projectId: "p-main",
    title: "Long answer",
    state: "completed",
    reply: LONG_REPLY,
    at: past,
  });
  alpha.addThread({
    id: "t-archived",
    projectId: "p-main",
    title: "Old",
    state: "completed",
    archived: true,
    at: past,
  });
  alpha.addThread({ id: "t-hidden", projectId: "p-hidden", title: "Secret", state: "completed", at: past });
  alpha.addThread({
    id: "t-shared",
    projectId: "p-main",
    title: "Shared alpha",
    state: "completed",
    at: past,
  });
  const beta = setup.sim.environment("beta").model;
  beta.addProject({ id: "p-beta", title: "beta", workspaceRoot: "/home/sim/code/beta" });
  beta.addThread({ id: "t-beta", projectId: "p-beta", title: "Beta work", state: "completed", at: past });
  beta.addThread({ id: "t-shared", projectId: "p-beta", title: "Shared beta", state: "completed", at: past });
  return setup;
}

/** Counts the HTTP reads an environment's model serves (the transport calls these per request). */
export interface ReadCounts {
  shell: number;
  bounded: Map<string, number>;
}

export function countReads(model: SimEnvironmentModel): ReadCounts {
  const counts: ReadCounts = { shell: 0, bounded: new Map() };
  const shell = model.httpShell.bind(model);
  const bounded = model.httpThreadBounded.bind(model);
  model.httpShell = () => {
    counts.shell++;
    return shell();
  };
  model.httpThreadBounded = (threadId: string) => {
    counts.bounded.set(threadId, (counts.bounded.get(threadId) ?? 0) + 1);
    return bounded(threadId);
  };
  return counts;
}

/** The JSON-RPC error a call is refused with before any handler runs. */
export async function protocolError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error("expected the call to be refused with a JSON-RPC error");
}

/** Resolves once `alias` swallowed a request under the `hang` fault. */
export function nextHeld(setup: SimReadSetup, alias: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = setup.sim.environment(alias).faults.onHeld(() => {
      stop();
      resolve();
    });
  });
}
