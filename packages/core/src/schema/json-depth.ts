/**
 * How deeply nested a JSON input may be. Recursive code (schema validation, the reserved-key scan,
 * canonical JSON) needs one stack frame per level, so a 10,000-deep array would exhaust the stack
 * and surface as an internal error instead of a refusal. No input of either server comes near
 * this: the deepest legitimate value (an answer to a T3 question, any JSON) is a few levels.
 */
export const MAX_JSON_INPUT_DEPTH = 64;

/**
 * The nesting depth of `value` — 0 for a scalar, 1 for `{}` or `[]`, one more per level of
 * objects or arrays inside — measured without recursion, so any depth is safe to measure. It
 * stops counting past `stopAfter`: the answer is then `stopAfter + 1`, and the rest of the value
 * is not visited (a deep input is refused without walking it all).
 */
export function jsonDepth(value: unknown, stopAfter = Number.POSITIVE_INFINITY): number {
  if (!isContainer(value)) return 0;
  let deepest = 0;
  // Depth-first with an explicit stack of [container, its depth].
  const pending: Array<[object, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [container, depth] = next;
    if (depth > deepest) deepest = depth;
    if (deepest > stopAfter) return stopAfter + 1;
    for (const child of Object.values(container)) {
      if (isContainer(child)) pending.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** True when `value` is nested deeper than `limit` levels (default `MAX_JSON_INPUT_DEPTH`). */
export function isTooDeep(value: unknown, limit = MAX_JSON_INPUT_DEPTH): boolean {
  return jsonDepth(value, limit) > limit;
}

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}
