import { ConnectorError } from "@t3-connector/core";
import type { CursorCodec, KeyPart } from "@t3-connector/core/pagination";

/** One environment's place in a `t3_since` traversal. */
export interface EnvironmentMark {
  /** The newest instant its rows carried (ms, that environment's clock). */
  ms: number;
  /** Short digests of the changes already reported that the next call's overlap will see again. */
  seen: string[];
}

/**
 * Where the previous `t3_since` answer stopped: per environment, the newest instant its rows
 * carried (that machine's clock, so a skewed clock never hides a change) and the changes already
 * reported near it; and the answer's own time (the connector's clock: renames the server saw,
 * and environments the answer did not reach).
 */
export interface SincePosition {
  marks: Map<string, EnvironmentMark>;
  /** When the answer was made (ms, connector clock). */
  generatedAtMs: number;
}

/** At most this many reported changes are remembered per environment (newest first kept). */
export const MAX_SEEN_PER_ENVIRONMENT = 40;

/** Cursors of this tool say so in their query field; another tool's cursor is refused. */
const SINCE_QUERY = "t3_since:v2";

export function encodeSinceCursor(cursors: CursorCodec, position: SincePosition, scope: string): string {
  const k: KeyPart[] = [];
  for (const [environmentId, mark] of position.marks) {
    const seen = mark.seen.slice(0, MAX_SEEN_PER_ENVIRONMENT);
    k.push(environmentId, mark.ms, seen.length, ...seen);
  }
  return cursors.encode({ v: 1, q: `${SINCE_QUERY}:${scope}`, k, c: position.generatedAtMs });
}

function foreignCursor(): ConnectorError {
  return new ConnectorError(
    "invalid_cursor",
    "This cursor is not a t3_since cursor for the same environment input. Repeat with the same environment, or pass since instead.",
  );
}

/** Decodes a cursor this process issued for the same scope; anything else is `invalid_cursor`. */
export function decodeSinceCursor(cursors: CursorCodec, cursor: string, scope: string): SincePosition {
  const payload = cursors.decode(cursor);
  if (payload.q !== `${SINCE_QUERY}:${scope}` || typeof payload.c !== "number") throw foreignCursor();
  const marks = new Map<string, EnvironmentMark>();
  const k = payload.k;
  let index = 0;
  while (index < k.length) {
    const [environmentId, ms, count] = [k[index], k[index + 1], k[index + 2]];
    if (typeof environmentId !== "string" || typeof ms !== "number" || typeof count !== "number") {
      throw foreignCursor();
    }
    const seen = k
      .slice(index + 3, index + 3 + count)
      .filter((part): part is string => typeof part === "string");
    marks.set(environmentId, { ms, seen });
    index += 3 + count;
  }
  return { marks, generatedAtMs: payload.c };
}
