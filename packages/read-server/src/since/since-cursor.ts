import { ConnectorError } from "@t3-connector/core";
import type { CursorCodec, KeyPart } from "@t3-connector/core/pagination";

/**
 * Where the previous `t3_since` answer stopped: per environment, the newest instant its rows
 * carried (that machine's clock, so a skewed clock never hides a change), and the answer's own
 * time (the connector's clock: renames the server saw, and environments the answer did not reach).
 */
export interface SincePosition {
  /** environmentId → the newest instant read there (ms, that environment's clock). */
  marks: Map<string, number>;
  /** When the answer was made (ms, connector clock). */
  generatedAtMs: number;
}

/** Cursors of this tool say so in their query field; another tool's cursor is refused. */
const SINCE_QUERY = "t3_since:v1";

export function encodeSinceCursor(cursors: CursorCodec, position: SincePosition, scope: string): string {
  const k: KeyPart[] = [];
  for (const [environmentId, ms] of position.marks) k.push(environmentId, ms);
  return cursors.encode({ v: 1, q: `${SINCE_QUERY}:${scope}`, k, c: position.generatedAtMs });
}

/** Decodes a cursor this process issued for the same scope; anything else is `invalid_cursor`. */
export function decodeSinceCursor(cursors: CursorCodec, cursor: string, scope: string): SincePosition {
  const payload = cursors.decode(cursor);
  if (payload.q !== `${SINCE_QUERY}:${scope}` || typeof payload.c !== "number") {
    throw new ConnectorError(
      "invalid_cursor",
      "This cursor is not a t3_since cursor for the same environment input. Repeat with the same environment, or pass since instead.",
    );
  }
  const marks = new Map<string, number>();
  for (let index = 0; index + 1 < payload.k.length; index += 2) {
    const environmentId = payload.k[index];
    const ms = payload.k[index + 1];
    if (typeof environmentId === "string" && typeof ms === "number") marks.set(environmentId, ms);
  }
  return { marks, generatedAtMs: payload.c };
}
