/**
 * The facts one write puts before the lease (ADR 0063): which environment and action, the projects
 * and threads it touches, a bound project write, the mode its input asks for and the mode of the
 * thread it drives. The dispatcher asks the lease with them at every stage, and `t3_preflight`
 * asks the default grant with the same facts, so the two cannot see a write differently.
 */
import {
  type AnyActionDefinition,
  type DrivenThreadMode,
  type PreparedAction,
  projectWriteKey,
  requestedRuntimeMode,
} from "../actions/index.js";
import type { LeaseRequest } from "./types.js";

export interface LeaseRequestFacts {
  readonly entry: AnyActionDefinition;
  readonly environmentId: string;
  readonly destination: string;
  readonly prepared: PreparedAction;
  /** At admission only: the input named no mode, and the lease's ceiling will fill it. */
  readonly awaitingCeiling?: true;
}

export function leaseRequestOf(
  facts: LeaseRequestFacts,
  stage: LeaseRequest["stage"],
  projectIds: readonly string[],
  threadRuntimeMode?: DrivenThreadMode,
): LeaseRequest {
  const { entry, prepared } = facts;
  const projectWrite = projectWriteKey(entry.action, prepared.input);
  const runtimeMode =
    facts.awaitingCeiling === true ? undefined : requestedRuntimeMode(entry.action, prepared.input);
  return {
    stage,
    environmentId: facts.environmentId,
    destination: facts.destination,
    action: entry.action,
    projectIds,
    threadIds: entry.targets(prepared.input).threadIds,
    ...(projectWrite === null ? {} : { projectWrite }),
    ...(runtimeMode === undefined ? {} : { runtimeMode }),
    ...(threadRuntimeMode === undefined ? {} : { threadRuntimeMode }),
  };
}
