/**
 * `t3-connector-write reconcile`: lists the journal's `uncertain` writes and settles each by
 * reading T3 (ADR 0003/0006). It sends a write again only when the person asks for it explicitly
 * (`--resend`), with the gate stopped, after printing what it will send (ADR 0042): a resend
 * reaches T3, and no lease covers it here. It prints what each became. A running gate owns the
 * journal, so the CLI then asks it over its relay (reading only: the gate resends only under the
 * client's own lease); with no gate it takes the journal lock itself (openJournal refuses while a
 * gate holds it, so the two never write the journal at once).
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { ConnectorError, isConnectorError, systemClock } from "@t3-connector/core";
import { type CliIo, writeJson } from "@t3-connector/core/cli-support";
import type { WriteConfig } from "@t3-connector/core/config";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import { type JournalRecord, openWriteEngine } from "@t3-connector/write-engine/engine";
import { CAPABILITY_FILE } from "../relay/capability.js";
import { errorJson, loadCliWriteConfig } from "./cli-io.js";
import { channelIdentity } from "./start-gate.js";

export interface ReconcileOptions {
  readonly environment?: string;
  readonly operationId?: string;
  readonly allUncertain: boolean;
  readonly json: boolean;
  /** How long to wait for a running gate's answer; default the relay client's (20 s). */
  readonly relayTimeoutMs?: number;
  /** The person asked to send again what T3 shows no effect of (stopped gate only). */
  readonly resend?: boolean;
}

export interface ReconcileRow {
  readonly environmentId: string;
  readonly operationId: string;
  readonly action: string;
  readonly key: string;
  /** The journal state after this run. */
  readonly state: string;
  readonly settled: boolean;
  readonly method: string | null;
  readonly found: boolean | null;
  readonly reason: string | null;
  /** What the resend of the journaled command answered (`receipt`, `refused`, …); null if none. */
  readonly resent: string | null;
  /** The record's error code once settled refused (or its last error while still open). */
  readonly code: string | null;
  readonly error?: { code: string; message: string };
}

/** What both paths offer: the uncertain records, and a reconcile by journal key. */
interface Settler {
  readonly via: "gate" | "journal";
  listUncertain(): Promise<
    readonly Pick<JournalRecord, "key" | "operationId" | "environmentId" | "action" | "command">[]
  >;
  reconcile(key: string, resend: boolean): Promise<Omit<ReconcileRow, "key">>;
  close(): Promise<void>;
}

export async function reconcileCommand(io: CliIo, options: ReconcileOptions): Promise<number> {
  const config = await loadCliWriteConfig(io);
  const environmentId =
    options.environment === undefined ? undefined : environmentIdOf(config, options.environment);
  const settler = (await gateSettler(config, options.relayTimeoutMs)) ?? (await journalSettler(io, config));
  const rows: ReconcileRow[] = [];
  const resend = options.resend === true;
  try {
    if (resend && settler.via === "gate") throw resendRefusedWhileGateRuns();
    const records = (await settler.listUncertain()).filter(
      (record) =>
        (environmentId === undefined || record.environmentId === environmentId) &&
        (options.operationId === undefined || record.operationId === options.operationId),
    );
    // What a resend would send, before anything is read or sent: ids and types, never message text.
    if (resend) for (const record of records) io.stderr.write(`${resendPlan(record)}\n`);
    for (const record of records) {
      try {
        rows.push({ ...(await settler.reconcile(record.key, resend)), key: record.key });
      } catch (error) {
        rows.push({
          ...pick(record),
          state: "uncertain",
          settled: false,
          method: null,
          found: null,
          reason: null,
          resent: null,
          code: null,
          error: errorJson(error),
        });
      }
    }
  } finally {
    await settler.close();
  }
  const missing = options.operationId !== undefined && rows.length === 0;
  if (options.json) writeJson(io, { via: settler.via, results: rows });
  else io.stdout.write(table(rows));
  if (missing) io.stderr.write(`no uncertain write has operationId ${options.operationId}\n`);
  return missing || rows.some((row) => row.state !== "completed" && row.state !== "refused") ? 1 : 0;
}

function resendRefusedWhileGateRuns(): ConnectorError {
  return new ConnectorError(
    "resend_not_allowed",
    "the gate is running, and it sends a write again only under the client's own lease: have the client " +
      "repeat the write with the same operationId and input, or call t3_reconciliar_escrita under an open " +
      "lease; or stop the gate and run reconcile --resend here. Nothing was read or sent",
  );
}

/** One line naming what a resend of `record` would send: ids and the command type, no text. */
export function resendPlan(
  record: Pick<JournalRecord, "operationId" | "environmentId" | "action" | "command">,
): string {
  const body = record.command?.body ?? {};
  const named = (field: string) => (typeof body[field] === "string" ? ` ${field}=${body[field]}` : "");
  const what =
    record.command === undefined
      ? "nothing: the journal kept no command"
      : `${record.command.kind === "launch" ? "orchestration.launchThread" : String(body.type)}` +
        `${named("commandId")}${named("threadId")}${named("projectId")}`;
  return `reconcile --resend: if T3 shows no effect of ${record.operationId} (${record.action} on ${record.environmentId}), it sends again: ${what}`;
}

function pick(record: Pick<JournalRecord, "key" | "operationId" | "environmentId" | "action">) {
  return {
    key: record.key,
    operationId: record.operationId,
    environmentId: record.environmentId,
    action: record.action,
  };
}

function environmentIdOf(config: WriteConfig, environment: string): string {
  const entry = config.environments.find(
    (item) => item.alias === environment || item.environmentId === environment,
  );
  if (entry === undefined) {
    throw new ConnectorError("environment_unknown", `no environment ${environment} is configured`, {
      details: { aliases: config.environments.map((item) => item.alias) },
    });
  }
  return entry.environmentId;
}

/**
 * The running gate's relay, when its capability file exists and the gate answers. The calls go
 * through the bridge's relay client (its capability-file checks, timeout and answer cap), so a
 * hung gate makes the command fail with `gate_unavailable` (`details.reason: "timeout"`).
 */
async function gateSettler(config: WriteConfig, relayTimeoutMs: number | undefined): Promise<Settler | null> {
  const info = await lstat(join(config.stateDir, CAPABILITY_FILE)).catch(() => null);
  if (info === null) return null;
  // Loaded on demand, as the CLI's bridge command does: the gate's own start never needs it.
  const { createRelayClient } = await import("@t3-connector/write-bridge");
  const relay = createRelayClient({
    port: config.port,
    stateDir: config.stateDir,
    ...(relayTimeoutMs === undefined ? {} : { timeoutMs: relayTimeoutMs }),
  });
  let records: Awaited<ReturnType<Settler["listUncertain"]>>;
  try {
    records = (await relay.call({ op: "list_uncertain" })).records;
  } catch (error) {
    // A capability left by a gate that died: nobody listens, so the journal is ours to open.
    if (isConnectorError(error, "gate_unavailable") && error.details?.reason === "not_listening") return null;
    throw error;
  }
  return {
    via: "gate",
    listUncertain: async () => records,
    reconcile: async (key) => {
      const answer = await relay.call({ op: "reconcile", key });
      return {
        environmentId: answer.environmentId,
        operationId: answer.operationId,
        action: answer.action,
        state: answer.state,
        settled: answer.settled,
        method: answer.observation?.method ?? null,
        found: answer.observation?.found ?? null,
        reason: answer.observation?.reason ?? null,
        resent: answer.resend?.sent === true ? answer.resend.answer : null,
        code: answer.error?.code ?? null,
      };
    },
    close: async () => undefined,
  };
}

async function journalSettler(io: CliIo, config: WriteConfig): Promise<Settler> {
  const registry = new EnvironmentRegistry({
    environments: config.environments,
    requiredScopes: OPERATE_SCOPES,
    ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
  });
  // Reconciliation never takes a new write through a lease: it only settles writes a lease already
  // admitted (a resend is the same journaled command, which T3 applies at most once).
  const engine = await openWriteEngine({
    stateDir: config.stateDir,
    registry,
    channel: channelIdentity(config),
    clock: systemClock,
  }).catch(async (error: unknown) => {
    await registry.close();
    throw error;
  });
  return {
    via: "journal",
    listUncertain: () => engine.listUncertain(),
    reconcile: async (key, resend) => {
      const outcome = await engine.reconcile(key, resend ? { operator: true } : undefined);
      return {
        environmentId: outcome.environmentId,
        operationId: outcome.operationId,
        action: outcome.action,
        state: outcome.state,
        settled: outcome.settled,
        method: outcome.observation?.method ?? null,
        found: outcome.observation?.found ?? null,
        reason: outcome.observation?.reason ?? null,
        resent: outcome.resend?.sent === true ? outcome.resend.answer : null,
        code: outcome.record.error?.code ?? null,
      };
    },
    close: async () => {
      await registry.close();
      await engine.close();
    },
  };
}

const COLUMNS = ["ENVIRONMENT", "OPERATION", "ACTION", "STATE", "SETTLED", "HOW"] as const;

/** How a row got its state: the effect found, the resend's answer, or why it stays open. */
function how(row: ReconcileRow): string {
  if (row.error !== undefined) return `error ${row.error.code}`;
  if (row.found === true) return `found (${row.method})`;
  if (row.resent !== null) {
    const code = row.state === "refused" && row.code !== null ? ` ${row.code}` : "";
    const open = row.state === "uncertain" && row.reason !== null ? `: ${row.reason}` : "";
    return `resent, T3 answered ${row.resent}${code}${open}`;
  }
  if (row.state === "refused" && row.code !== null) return `refused ${row.code} (${row.reason ?? "read"})`;
  return row.reason ?? row.method ?? "-";
}

/** A plain aligned table for a terminal (stdout); one line per uncertain write. */
export function table(rows: readonly ReconcileRow[]): string {
  if (rows.length === 0) return "No uncertain writes.\n";
  const lines = rows.map((row) => [
    row.environmentId,
    row.operationId,
    row.action,
    row.state,
    row.settled ? "yes" : "no",
    how(row),
  ]);
  const widths = COLUMNS.map((title, index) =>
    Math.max(title.length, ...lines.map((line) => (line[index] ?? "").length)),
  );
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join("  ");
  return `${[format(COLUMNS), ...lines.map(format)].join("\n")}\n`;
}
