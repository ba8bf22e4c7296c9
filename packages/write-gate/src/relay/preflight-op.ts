/**
 * The relay's `preflight` op (ADR 0075): would a launch or a message pass now? No lease is needed
 * and nothing is sent, reserved, journaled or audited. The gate hands the engine the scope the
 * person's default grant would give (its approval desk surveying live with nothing proposed), and
 * the engine judges the write with the send's own rules. At most a few run at once per gate: each
 * reads every environment, and a client looping on it must not starve the writes.
 */
import { ConnectorError } from "@t3-connector/core";
import type { WriteEngine } from "@t3-connector/write-engine/engine";
import type { PreflightOp, RelayResultOf } from "@t3-connector/write-engine/relay-contract";
import type { ApprovalDesk } from "../contract.js";

/** Preflights running at once, all clients together; one more is refused, not queued. */
export const MAX_PREFLIGHTS_AT_ONCE = 4;
/** The survey and the reads together; a slow environment is left out by the survey's own deadline. */
const PREFLIGHT_TIMEOUT_MS = 15_000;

/**
 * The preflights one gate runs at once. The gate holds its own (`start-gate.ts`), so two gates in
 * one process never share a budget.
 */
export class PreflightSlots {
  readonly #limit: number;
  #running = 0;

  constructor(limit: number = MAX_PREFLIGHTS_AT_ONCE) {
    this.#limit = limit;
  }

  /** A slot, freed by the function it returns; refused, typed, when every slot is taken. */
  take(): () => void {
    if (this.#running >= this.#limit) {
      throw new ConnectorError(
        "client_budget_exceeded",
        `at most ${this.#limit} preflights run at once on this gate: wait for an answer, then ask again`,
        { details: { budget: "preflights_at_once", limit: this.#limit } },
      );
    }
    this.#running += 1;
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.#running -= 1;
    };
  }
}

/** The engine's judge and the gate's slots for it. */
export interface GatePreflight {
  readonly judge: WriteEngine["preflight"];
  readonly slots: PreflightSlots;
}

export interface PreflightDeps {
  readonly preflight?: GatePreflight;
  readonly approvals: Pick<ApprovalDesk, "defaultScope">;
}

export async function preflightOp(op: PreflightOp, deps: PreflightDeps): Promise<RelayResultOf<"preflight">> {
  const gate = deps.preflight;
  if (gate === undefined) throw new ConnectorError("invalid_request", "this gate does not answer preflights");
  const free = gate.slots.take();
  const judge = gate.judge;
  try {
    const scope = await deps.approvals.defaultScope(AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS));
    const answer = await judge({
      action: op.action,
      ...(op.environment === undefined ? {} : { environment: op.environment }),
      ...(op.operationId === undefined ? {} : { operationId: op.operationId }),
      input: op.input,
      scope,
    });
    return {
      ...answer,
      reasons: [...answer.reasons],
      duplicates: { checked: answer.duplicates.checked, threads: answer.duplicates.threads.map(copyThread) },
      considered: answer.considered.map((verdict) => ({ ...verdict, reasons: [...verdict.reasons] })),
    };
  } finally {
    free();
  }
}

function copyThread(thread: {
  threadId: string;
  title: string;
  matches: readonly ("branch" | "worktree" | "title")[];
}) {
  return { threadId: thread.threadId, title: thread.title, matches: [...thread.matches] };
}
