/**
 * Settling an `uncertain` write. First read T3 (observe.ts): an effect found is `completed`. If it
 * is not there, send the journaled command again, exactly as it was sent, under the same derived
 * ids: T3's commandId is an idempotency key (docs/t3-protocol-notes.md), so its answer decides without
 * ever applying the command twice:
 *
 * - a receipt → `completed` (applied once, now or before);
 * - a typed refusal, "previously rejected", or an older server's decode defect → `refused`;
 * - a conflict (the commandId was used on another thread) → stays `uncertain`, with the reason;
 * - a lost answer → stays `uncertain`.
 *
 * The resend happens only within a bounded window after the original attempt (T3's receipt
 * retention is not documented; ADR 0006), only when the journal kept the command (or the caller
 * repeats the same input), only for actions whose every id T3 would dedupe is derived, and only
 * under a lease check that covers the write (ADR 0042): without one the settlement reads only.
 *
 * When the server already answered the original send with a defect (`Die`), its request is over:
 * a full read that shows no effect then proves that nothing was applied (`refused`), without
 * sending anything.
 */

import type { Clock } from "@t3-connector/core";
import { ConnectorError, isConnectorError } from "@t3-connector/core";
import type { ConnectedEnvironment, EnvironmentRegistry } from "@t3-connector/core/environments";
import { parseAcceptedCommandTypes } from "@t3-connector/core/t3";
import type { BuiltPayload, WireCommand, WireLaunchInput } from "../actions/index.js";
import type { Journal, JournalCommand, JournalError, JournalRecord } from "../journal/index.js";
import { journalErrorOf } from "./journal-errors.js";
import { observe } from "./observe.js";
import { type SendOutcome, sendOnce } from "./send.js";
import type { LeaseVerdict, Observation, ReconcileOutcome, ResendReport } from "./types.js";

/** One hour: the life of one lease, and short against any plausible receipt retention (ADR 0006). */
export const DEFAULT_RESEND_WINDOW_MS = 60 * 60_000;

/**
 * Actions whose command makes T3 create something named by an id T3 picks itself (a delegated
 * task and its child thread): were T3 ever to forget the receipt, a resend could create a second
 * one that no derived id would catch. They are settled by reading only.
 */
const NOT_RESENT: ReadonlySet<string> = new Set(["delegated_task.request"]);

export interface ReconcileDeps {
  readonly journal: Journal;
  readonly clock: Clock;
  readonly registry: EnvironmentRegistry;
  readonly readTimeoutMs: number;
  readonly resendWindowMs: number;
}

export interface ReconcileOptions {
  /** False: read only (the server just answered the send; nothing is sent again now). */
  readonly resend?: boolean;
  /** The command rebuilt from a repeated client input, for records that kept none. */
  readonly payload?: BuiltPayload;
  /**
   * The lease check right before a resend (a client repeat, or a reconcile under the caller's
   * lease: resend-authority.ts). Without one nothing is resent (ADR 0042).
   */
  readonly finalCheck?: () => LeaseVerdict;
  /** Why this settlement may only read T3 (no lease covers a resend), said in its outcome. */
  readonly readOnly?: string;
}

export function journalCommandOf(payload: BuiltPayload): JournalCommand {
  switch (payload.kind) {
    case "dispatch":
      return { kind: "dispatch", body: { ...payload.command } };
    case "project":
      return { kind: "project", body: { ...payload.mutation } };
    case "launch":
      return { kind: "launch", body: { ...payload.input } };
  }
}

function payloadOf(command: JournalCommand): BuiltPayload {
  switch (command.kind) {
    case "dispatch":
      return { kind: "dispatch", command: command.body as unknown as WireCommand };
    case "project":
      return { kind: "project", mutation: command.body as unknown as WireCommand };
    case "launch":
      return { kind: "launch", input: command.body as unknown as WireLaunchInput };
  }
}

interface Decision {
  readonly record: JournalRecord;
  readonly observation: Observation | null;
  readonly observedAt: number | null;
  readonly resend: ResendReport | null;
  /** The reason it stays open, when it does. */
  readonly reason?: string;
}

function outcome(decision: Decision, settled: boolean): ReconcileOutcome {
  const { record, observation } = decision;
  const reason = decision.reason;
  return {
    key: record.key,
    operationId: record.operationId,
    environmentId: record.environmentId,
    action: record.action,
    state: record.state,
    settled,
    observation:
      observation === null || reason === undefined || observation.found
        ? observation
        : { ...observation, reason },
    observedAt: decision.observedAt,
    resend: decision.resend,
    record,
  };
}

export async function reconcileRecord(
  key: string,
  deps: ReconcileDeps,
  options: ReconcileOptions = {},
): Promise<ReconcileOutcome> {
  const record = await deps.journal.get(key);
  if (record === undefined) {
    throw new ConnectorError("not_found", "no write is recorded under this key", {
      details: { reason: "operation_unknown" },
    });
  }
  const base = { record, observation: null, observedAt: null, resend: null } satisfies Decision;
  if (record.state !== "uncertain") return outcome(base, false);
  const handle = deps.registry.find(record.environmentId);
  if (handle === undefined) {
    const observation = { method: "none", found: false, reason: "environment_not_configured" };
    return outcome({ ...base, observation }, false);
  }
  let environment: ConnectedEnvironment;
  try {
    environment = await handle.connect();
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    const observation = { method: "read", found: false, reason: `read_failed: ${error.code}` };
    return outcome({ ...base, observation, observedAt: deps.clock.now() }, false);
  }
  const observedAt = deps.clock.now();
  const observation = await observeSafely(record, environment, deps);
  if (observation.found && observation.receipt !== undefined) {
    const settled = await deps.journal.settle(key, { state: "completed", receipt: observation.receipt });
    return outcome({ ...base, record: settled, observation, observedAt }, true);
  }
  const looked = { ...base, observation, observedAt };

  // The server answered the original send with a defect: its request is over.
  const answered = answeredDefect(record);
  if (answered !== null) {
    if (answered.unsupported !== null || observation.conclusive === true) {
      const error = answered.unsupported ?? defectWithoutEffect(record);
      const settled = await deps.journal.settle(key, { state: "refused", error });
      return outcome({ ...looked, record: settled }, true);
    }
  }

  const command =
    record.command ?? (options.payload === undefined ? undefined : journalCommandOf(options.payload));
  const why = whyNotResent(record, command, options, deps);
  if (why !== null || command === undefined) {
    const answer = why ?? "no_command_kept";
    return outcome(
      {
        ...looked,
        resend: { sent: false, answer },
        reason: `${observation.reason ?? "not found"}; not resent: ${answer}`,
      },
      false,
    );
  }
  const finalCheck = options.finalCheck;
  if (finalCheck === undefined) throw new ConnectorError("internal", "a resend without a lease check");
  const rpc = await environment.rpc();
  const sent = await sendOnce(rpc, payloadOf(command), finalCheck);
  return decideFromResend(key, deps, sent, { ...looked, record }, environment);
}

async function observeSafely(
  record: JournalRecord,
  environment: ConnectedEnvironment,
  deps: ReconcileDeps,
): Promise<Observation> {
  try {
    return await observe(record.action, record.derivedIds ?? {}, environment, deps.readTimeoutMs);
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    return { method: "read", found: false, conclusive: false, reason: `read_failed: ${error.code}` };
  }
}

function whyNotResent(
  record: JournalRecord,
  command: JournalCommand | undefined,
  options: ReconcileOptions,
  deps: ReconcileDeps,
): string | null {
  if (options.resend === false) return "the server answered the send; read only";
  if (NOT_RESENT.has(record.action)) return "T3 names this action's effects itself; read only";
  if (command === undefined) return "the journal kept no command (written before resends existed)";
  const age = deps.clock.now() - record.createdAt;
  if (age > deps.resendWindowMs) {
    return `the original attempt is older than the resend window (${Math.round(deps.resendWindowMs / 60_000)} min)`;
  }
  if (options.readOnly !== undefined) return options.readOnly;
  if (options.finalCheck === undefined) return "no lease check was given for a resend; read only";
  return null;
}

async function decideFromResend(
  key: string,
  deps: ReconcileDeps,
  sent: SendOutcome,
  decision: Decision,
  environment: ConnectedEnvironment,
): Promise<ReconcileOutcome> {
  switch (sent.kind) {
    case "completed": {
      const settled = await deps.journal.settle(key, { state: "completed", receipt: sent.receipt });
      return outcome({ ...decision, record: settled, resend: { sent: true, answer: "receipt" } }, true);
    }
    case "refused": {
      const error = journalErrorOf(sent.error);
      const settled = await deps.journal.settle(key, { state: "refused", error });
      return outcome(
        { ...decision, record: settled, resend: { sent: true, answer: "refused", code: sent.error.code } },
        true,
      );
    }
    case "defect": {
      // Answered with a defect: the request is over, so a full read decides.
      const again = await observeSafely(decision.record, environment, deps);
      const resend = { sent: true, answer: "defect", code: sent.error.code };
      if (again.found && again.receipt !== undefined) {
        const settled = await deps.journal.settle(key, { state: "completed", receipt: again.receipt });
        return outcome({ ...decision, record: settled, observation: again, resend }, true);
      }
      if (again.conclusive === true && isConnectorError(sent.error, "protocol_error")) {
        const settled = await deps.journal.settle(key, {
          state: "refused",
          error: defectWithoutEffect(decision.record),
        });
        return outcome({ ...decision, record: settled, observation: again, resend }, true);
      }
      const record = await recordAnswer(deps, key, sent.error);
      return outcome({ ...decision, record, observation: again, resend, reason: sent.error.message }, false);
    }
    case "conflict":
    case "lost":
    case "not_sent": {
      const record = await recordAnswer(deps, key, sent.error);
      const reason =
        sent.kind === "conflict"
          ? `T3 says commandId ${decision.record.derivedIds?.commandId ?? "?"} conflicts: ${sent.error.message}`
          : `the resend got no decisive answer: ${sent.error.message}`;
      return outcome(
        {
          ...decision,
          record,
          resend: { sent: sent.kind !== "not_sent", answer: sent.kind, code: sent.error.code },
          reason,
        },
        false,
      );
    }
  }
}

async function recordAnswer(deps: ReconcileDeps, key: string, error: ConnectorError): Promise<JournalRecord> {
  const code = error.code === "rpc_failure" ? "rpc_failure/conflict" : error.code;
  return deps.journal.recordError(key, { code, message: error.message });
}

/** The defect a record's last error holds, when the server answered the send with a `Die`. */
function answeredDefect(record: JournalRecord): { unsupported: JournalError | null } | null {
  if (record.error?.code !== "protocol_error") return null;
  const marker = "reported a defect: ";
  const at = record.error.message.indexOf(marker);
  const accepted =
    at === -1 ? undefined : parseAcceptedCommandTypes(record.error.message.slice(at + marker.length));
  if (accepted === undefined) return { unsupported: null };
  return {
    unsupported: {
      code: "action_unsupported",
      message: `this T3 server does not accept ${record.action} (it refused the payload before running anything)`,
    },
  };
}

function defectWithoutEffect(record: JournalRecord): JournalError {
  return {
    code: "t3_refused/Defect",
    message: `T3 answered ${record.action} with a defect and shows no effect of it: nothing was applied`,
  };
}
