import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const BUILD = ["pnpm", "exec", "tsc", "-b", "packages/core", "packages/write-bridge"];

/**
 * Builds the dist the spawned bridge runs, under the same kernel lock as the gate's tests use
 * (both build packages/core: two `tsc -b` writing one dist at once corrupt each other's output).
 */
export async function buildBridgeDist(): Promise<void> {
  const run = promisify(execFile);
  const hasFlock = await run("flock", ["--version"]).then(
    () => true,
    () => false,
  );
  const lock = join(tmpdir(), "t3c-write-gate-build.lock");
  const [command, ...args] = hasFlock ? ["flock", lock, ...BUILD] : BUILD;
  await run(command as string, args, { cwd: ROOT });
}

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
