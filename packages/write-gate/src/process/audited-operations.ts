/**
 * The writes the audit log saw dispatched, as evidence for `journal accept-unknown-loss`: after a
 * loss the journal cannot name, these are the operations a client might retry, so they stay
 * refused while new operationIds pass again. The log is the gate's own append-only file; a line
 * that does not parse (a torn last line after a crash) is skipped, not trusted.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AuditedOperation } from "@t3-connector/write-engine/engine";
import { AUDIT_FILE } from "../audit/index.js";

const WRITE_EVENTS = new Set(["dispatch", "conditional_send", "reconciled"]);

export async function readAuditedOperations(stateDir: string): Promise<AuditedOperation[]> {
  let text: string;
  try {
    text = await readFile(join(stateDir, AUDIT_FILE), "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return [];
    throw error;
  }
  const operations: AuditedOperation[] = [];
  for (const line of text.split("\n")) {
    const parsed = parseLine(line);
    if (parsed !== null) operations.push(parsed);
  }
  return operations;
}

function parseLine(line: string): AuditedOperation | null {
  if (line.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const fields = value as {
    event?: unknown;
    environmentId?: unknown;
    operationId?: unknown;
    state?: unknown;
    at?: unknown;
  };
  if (typeof fields.event !== "string" || !WRITE_EVENTS.has(fields.event)) return null;
  // Refused before the reservation: never journaled, never sent.
  if (fields.state === "not_recorded") return null;
  if (typeof fields.environmentId !== "string" || typeof fields.operationId !== "string") return null;
  const at = typeof fields.at === "string" ? Date.parse(fields.at) : Number.NaN;
  if (Number.isNaN(at)) return null;
  return { environmentId: fields.environmentId, operationId: fields.operationId, at };
}
