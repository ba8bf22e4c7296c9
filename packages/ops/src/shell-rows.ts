import type { ShellThreadInput } from "@t3-connector/core/state";
import type { ThreadShell } from "@t3-connector/core/t3";

/**
 * The decoded shell row as core/state's input. The wire schema keeps `modelSelection.options`
 * as unknown (forward compatible); the state projection reads it defensively, so the view is safe.
 */
export function stateRow(thread: ThreadShell): ShellThreadInput {
  return thread as ShellThreadInput;
}
