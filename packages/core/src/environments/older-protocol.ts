/**
 * How a server from before the protocol-2 cut-over (T3 0.0.46) is recognised and refused. Such a
 * server (stable 0.0.45 and older, Orchestrator V1) says so in its descriptor
 * (`orchestrationProtocolVersion: 1`, 0.0.45) or only in its shell: no `schemaVersion`, and
 * rows in the V1 shape (`latestTurn`, `session`, `hasPendingApprovals`, no `status`; the real
 * 0.0.28's answer is `fixtures/t3-0.0.28/03-http-shell-v1-rows.json`). Every place that meets it
 * answers the same typed refusal, naming the environment and the version (ADR 0069).
 */
import { ConnectorError } from "../errors.js";

/** The first T3 release that speaks orchestration protocol 2. */
export const FIRST_PROTOCOL_2_RELEASE = "0.0.46";

export interface ShellProtocolMarks {
  schemaVersion: number | undefined;
  /** Rows in the V1 shape: no `status`, and `latestTurn` or `session` present. */
  v1Rows: number;
}

function isV1Row(row: unknown): boolean {
  if (row === null || typeof row !== "object") return false;
  const record = row as Record<string, unknown>;
  return !("status" in record) && ("latestTurn" in record || "session" in record);
}

/** What a shell answer, read without the V2 row schema, says about its protocol. */
export function shellProtocolMarks(shell: {
  schemaVersion?: unknown;
  threads?: unknown;
}): ShellProtocolMarks {
  const rows = Array.isArray(shell.threads) ? shell.threads : [];
  return {
    schemaVersion: typeof shell.schemaVersion === "number" ? shell.schemaVersion : undefined,
    v1Rows: rows.filter(isV1Row).length,
  };
}

/** The refusal of a server that does not speak protocol 2, with its fix. */
export function protocolUnsupported(
  alias: string,
  version: string | null,
  why: string,
  details: Record<string, unknown>,
): ConnectorError {
  return new ConnectorError(
    "protocol_unsupported",
    `environment "${alias}" runs T3 ${version ?? "of an unknown version"}, which does not speak orchestration ` +
      `protocol 2 (${why}); upgrade T3 to ${FIRST_PROTOCOL_2_RELEASE} or later`,
    { details: { ...details, environment: alias, serverVersion: version } },
  );
}
