/**
 * What is left of a run's diff when T3 can no longer serve its patch: T3 0.0.31 loses the ref
 * before a thread's first run once a second run starts (fixtures 133/134), and then only that
 * run's checkpoint still names its files and counts. Shared by `t3_diff` and the person's page.
 */
import { isConnectorError } from "../errors.js";
import type { CheckpointInput } from "../state/types.js";
import type { DiffFileOut } from "./diff-page.js";

/** Whether T3 refused because the base ref (before the first run) is gone (fixtures 133/134). */
export function baseRefLost(error: unknown): boolean {
  if (!isConnectorError(error, "rpc_failure")) return false;
  return error.details?.checkpointError === "CheckpointRefUnavailableError" && error.details.turn === 0;
}

/** The files a checkpoint records, without patches (each marked cut: its patch is not shown). */
export function checkpointFiles(checkpoint: CheckpointInput | undefined): DiffFileOut[] {
  return (checkpoint?.files ?? []).flatMap((file): DiffFileOut[] =>
    typeof file.path === "string"
      ? [
          {
            path: file.path,
            status: "modified",
            additions: file.additions ?? 0,
            deletions: file.deletions ?? 0,
            binary: false,
            patch: "",
            truncated: true,
          },
        ]
      : [],
  );
}
