/**
 * What the audit log may hold. Every event is built from an allow-list of fields: ids, codes,
 * states, counts. Never a token, a pairing or enrollment code, the relay capability or message
 * text — the builders below take only those fields, so a caller cannot pass anything else through.
 */
import type { ReconcileOutcome } from "@t3-connector/write-engine/engine";

export type AuditEvent =
  | { readonly event: "gate_started"; readonly bootId: string; readonly environments: readonly string[] }
  | { readonly event: "gate_stopped"; readonly bootId: string; readonly reason: string }
  | {
      readonly event: "approval_requested";
      readonly requestId: string;
      readonly covered: readonly string[];
      readonly leftOut: ReadonlyArray<{ readonly environmentId: string; readonly reason: string }>;
    }
  | { readonly event: "approval_denied"; readonly requestId: string }
  | {
      /** An approval attempt the gate refused (bad assertion, dead request, …): its code only. */
      readonly event: "approval_failed";
      readonly requestId: string | null;
      readonly code: string;
    }
  | { readonly event: "passkey_enrolled"; readonly credentialId: string; readonly first: boolean }
  | { readonly event: "passkey_removed"; readonly credentialId: string }
  | {
      /** A refused enrollment or removal step (wrong code, bad step-up, …): its code only, never the code typed. */
      readonly event: "enrollment_failed" | "passkey_removal_failed";
      readonly code: string;
    }
  | {
      readonly event: "lease_granted";
      readonly leaseId: string;
      readonly scopeFingerprint: string;
      readonly environments: readonly string[];
      readonly expiresAt: string;
    }
  | {
      readonly event: "lease_expired" | "lease_revoked" | "lease_closed";
      readonly leaseId: string;
      readonly reason: string;
    }
  | {
      readonly event: "dispatch";
      readonly leaseId: string;
      readonly action: string;
      readonly environmentId: string | null;
      readonly operationId: string;
      /** Journal state after the call, or `not_recorded` when refused before the reservation. */
      readonly state: string;
      readonly code: string | null;
      readonly replayed: boolean;
    }
  | {
      readonly event: "conditional_send";
      readonly leaseId: string;
      readonly environmentId: string | null;
      readonly operationId: string;
      /** The conditional send's state, or `not_recorded` when refused before any step. */
      readonly state: string;
      readonly reason: string | null;
      readonly code: string | null;
      readonly replayed: boolean;
    }
  | {
      readonly event: "reconciled";
      readonly environmentId: string;
      readonly operationId: string;
      readonly state: string;
      readonly settled: boolean;
      readonly method: string | null;
      readonly found: boolean | null;
      readonly code: string | null;
    }
  | {
      /** One decision of the person's own, from the inbox (ADR 0073): ids, the result and its code only. */
      readonly event: "inbox_decision";
      readonly itemId: string;
      readonly environmentId: string;
      readonly threadId: string;
      readonly requestId: string;
      /** `accept`, `acceptForSession`, `decline` or `answer` (never the answer's text). */
      readonly decision: string;
      readonly operationId: string;
      /** `sent`, `already_sent`, `already_answered`, `gone`, `refused` or `uncertain`. */
      readonly result: string;
      readonly code: string | null;
      /** The fingerprint of the set the one assertion covered. */
      readonly setFingerprint: string;
    }
  | {
      /** A set of decisions refused whole (bad or replayed assertion, another set): nothing was sent. */
      readonly event: "inbox_refused";
      readonly code: string;
      readonly setFingerprint: string;
    }
  | {
      /** `t3-connector-write journal recover --accept-loss`: an operator accepted to lose what the journal lost. */
      readonly event: "journal_recovered";
      /** The damaged files, relative to the state directory. */
      readonly files: readonly string[];
      /** Lost operations the journal could name: refused (operation_lost) until `refusedUntil`. */
      readonly lostKeys: number;
      readonly lostOperationIds: readonly string[];
      /** Set when records were lost that nobody can name: every unknown operationId is refused until then. */
      readonly unknownLossUntil: string | null;
      readonly refusedUntil: string | null;
      readonly movedAside: readonly string[];
    }
  | {
      /** `journal accept-unknown-loss --checked-t3`: new operationIds pass again after an unknown loss. */
      readonly event: "journal_unknown_loss_lifted";
      /** The files each lifted loss came from. */
      readonly files: readonly string[];
      /** What the audit log named as dispatched before the loss: still refused. */
      readonly stillRefusedOperationIds: readonly string[];
      readonly stillRefusedUntil: string | null;
    };

/** One line of the file: the event plus when it was written (ISO, from the injected clock). */
export type AuditLine = AuditEvent & { readonly at: string };

/** The audit line of one reconciliation attempt, the same whether the relay or the start-up asked. */
export function reconciledEvent(outcome: ReconcileOutcome): AuditEvent {
  return {
    event: "reconciled",
    environmentId: outcome.environmentId,
    operationId: outcome.operationId,
    state: outcome.state,
    settled: outcome.settled,
    method: outcome.observation?.method ?? null,
    found: outcome.observation?.found ?? null,
    code: outcome.record.error?.code ?? null,
  };
}
