/**
 * A typed refusal recognised from T3's own words, for a server that sends only the user-facing
 * `message` of a dispatch refusal and not its nested `Orchestrator…Error` cause (0.0.46 renders
 * the message from the cause, `ws.ts:1769-1778`; whether the cause travels is not known, ADR 0069).
 * The patterns cover the upstream text seen (the subagent refusal, index id 70110010837) and the
 * simulator's; a message that matches none stays `t3_refused` with T3's words.
 */
export type RefusalFromText = "subagent_thread_read_only" | "above_mode_limit";

const PATTERNS: ReadonlyArray<readonly [RegExp, RefusalFromText]> = [
  // "This subagent is run by its provider and cannot take messages. Message the parent thread instead."
  [/subagent\b.*\b(cannot take|takes no) messages/i, "subagent_thread_read_only"],
  // "Thread … cannot use runtime mode full-access: it is limited to approval-required."
  [/cannot use runtime mode .*limited to|above (its|the) mode limit/i, "above_mode_limit"],
];

export function refusalFromText(message: string): RefusalFromText | undefined {
  return PATTERNS.find(([pattern]) => pattern.test(message))?.[1];
}
