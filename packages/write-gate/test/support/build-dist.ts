import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const BUILD = ["pnpm", "exec", "tsc", "-b", "packages/core", "packages/t3-sim", "packages/write-gate"];

/**
 * Builds the dist the spawned gates run. Test files run in parallel, and two `tsc -b` writing the
 * same dist at once corrupt each other's output, so the build runs under an exclusive kernel lock
 * (`flock`, util-linux; it blocks on the lock instead of polling). Without flock it runs as is.
 */
export async function buildDist(): Promise<void> {
  const run = promisify(execFile);
  const hasFlock = await run("flock", ["--version"]).then(
    () => true,
    () => false,
  );
  const lock = join(tmpdir(), "t3c-write-gate-build.lock");
  const [command, ...args] = hasFlock ? ["flock", lock, ...BUILD] : BUILD;
  await run(command as string, args, { cwd: ROOT });
}
