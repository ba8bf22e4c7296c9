import { execFile } from "node:child_process";
import { promisify } from "node:util";

/**
 * What the strace proof does here: it runs where strace can trace; elsewhere a desk skips it, but
 * CI (`CI` set to `true` or `1`, as CI services do) fails, so a runner without ptrace cannot turn
 * the README's "the bridge opens no token file" into an unchecked claim.
 */
export function traceProofVerdict(
  canTrace: boolean,
  env: Readonly<Record<string, string | undefined>>,
): "run" | "skip" | "fail" {
  if (canTrace) return "run";
  const ci = env.CI?.toLowerCase();
  return ci === "true" || ci === "1" ? "fail" : "skip";
}

/** Whether `strace` can trace a child here (it needs ptrace, which some sandboxes forbid). */
export async function straceWorks(): Promise<boolean> {
  const run = promisify(execFile);
  return run("strace", [
    "-f",
    "-qq",
    "-e",
    "trace=openat",
    "-o",
    "/dev/null",
    process.execPath,
    "-e",
    "0",
  ]).then(
    () => true,
    () => false,
  );
}
