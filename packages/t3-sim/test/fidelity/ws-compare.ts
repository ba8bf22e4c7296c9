/** Compares a captured socket transcript with what the simulator's socket carried. */

import { compareValues, type Difference } from "./shape.js";
import type { LoggedFrame } from "./ws-channel.js";

type Item = Record<string, unknown>;

/** One line per frame: direction, tag, Exit outcome and cause tags, Chunk item kinds in order. */
export function signature({ dir, frame }: LoggedFrame): string {
  const arrow = dir === "sent" ? ">" : "<";
  if (frame._tag === "Chunk" && Array.isArray(frame.values)) {
    const kinds = (frame.values as Item[]).map((value) => {
      const event = value.event as Item | undefined;
      return event && typeof event.type === "string" ? `${value.kind}:${event.type}` : String(value.kind);
    });
    return `${arrow}Chunk[${kinds.join(",")}]`;
  }
  if (frame._tag === "Exit") {
    const exit = frame.exit as Item | undefined;
    const causes = Array.isArray(exit?.cause)
      ? `(${(exit.cause as Item[]).map((cause) => cause._tag).join(",")})`
      : "";
    return `${arrow}Exit:${String(exit?._tag)}${causes}`;
  }
  return `${arrow}${frame._tag}`;
}

/** Longest common subsequence of two signature lists, as index pairs. */
function align(expected: readonly string[], actual: readonly string[]): [number, number][] {
  const rows = expected.length + 1;
  const cols = actual.length + 1;
  const table = Array.from({ length: rows }, () => new Array<number>(cols).fill(0));
  for (let i = expected.length - 1; i >= 0; i--) {
    for (let j = actual.length - 1; j >= 0; j--) {
      const row = table[i] as number[];
      const next = table[i + 1] as number[];
      row[j] = expected[i] === actual[j] ? (next[j + 1] ?? 0) + 1 : Math.max(next[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < expected.length && j < actual.length) {
    if (expected[i] === actual[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if ((table[i + 1]?.[j] ?? 0) >= (table[i]?.[j + 1] ?? 0)) i++;
    else j++;
  }
  return pairs;
}

/**
 * The frame sequence must match signature for signature; frames that line up are then compared
 * by shape (`frames[i]` is the frame's index in the capture).
 */
export function compareTranscript(
  expected: readonly LoggedFrame[],
  actual: readonly LoggedFrame[],
  prefix: string,
): Difference[] {
  const out: Difference[] = [];
  const want = expected.map(signature);
  const got = actual.map(signature);
  if (want.join(" ") !== got.join(" ")) {
    out.push({
      path: `${prefix}frames`,
      message: `capture: ${want.join(" ")}\n  simulator: ${got.join(" ")}`,
    });
  }
  for (const [i, j] of align(want, got)) {
    const left = expected[i];
    const right = actual[j];
    if (left && right) compareValues(left.frame, right.frame, `${prefix}frames[${i}]`, out);
  }
  return out;
}
