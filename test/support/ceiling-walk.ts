/**
 * The walk of every catalogue action against threads running in full-access (T3's default, and
 * what action-states.ts seeds) under an `approval-required` ceiling (ADR 0037). The gate's relay
 * test and ops' test share it: what the walk expects of each action, and how it counts at the
 * simulator what ran and in which mode.
 */
import type { AgentWork, SimEnvironment } from "@t3-connector/t3-sim";
import {
  type ActionId,
  getAction,
  type RuntimeMode,
  runtimeModeRank,
} from "@t3-connector/write-engine/actions";

export const WALK_CEILING: RuntimeMode = "approval-required";

/**
 * The actions that can make an agent run but whose sample input and seeded state keep this walk
 * within the ceiling: a launch naming approval-required, lowering an idle thread's mode, a stop
 * that holds the queue, entering plan mode. Every other action whose effect is not runs-nothing
 * is refused.
 */
export const WITHIN_CEILING_BY_INPUT: readonly ActionId[] = [
  "thread.launch",
  "thread.runtime-mode.set",
  "run.interrupt",
  "thread.interaction-mode.set",
];

export function refusedInWalk(action: ActionId): boolean {
  return getAction(action).runEffect !== "runs-nothing" && !WITHIN_CEILING_BY_INPUT.includes(action);
}

/** Where an environment's counters stood before a write. */
export interface SimCounters {
  readonly commands: number;
  readonly work: number;
}

export function countersOf(env: SimEnvironment): SimCounters {
  return { commands: env.model.receivedCommands.length, work: env.model.agentWork.length };
}

/** The agent work since `before` that ran above the ceiling. */
export function workAboveCeiling(
  env: SimEnvironment,
  before: SimCounters,
  ceiling: RuntimeMode = WALK_CEILING,
): AgentWork[] {
  return env.model.agentWork
    .slice(before.work)
    .filter((work) => runtimeModeRank(work.runtimeMode as RuntimeMode) > runtimeModeRank(ceiling));
}

/** The commands the environment accepted since `before`, by type. */
export function commandTypesSince(env: SimEnvironment, before: SimCounters): string[] {
  return env.model.receivedCommands.slice(before.commands).map((command) => command.type);
}
