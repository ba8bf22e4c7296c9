import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Where the kernel lock lives: one per checkout, so two worktrees build side by side. */
const LOCK = fileURLToPath(new URL("../../node_modules/.t3c-build.lock", import.meta.url));

/**
 * vitest's globalSetup: builds every package once, before any test file runs (`pnpm build`: `tsc
 * -b` of every package and the read server's bundle), because the end-to-end tests spawn the real
 * bins and those run the compiled dist/. Test files no longer build for themselves, so a full run
 * compiles once instead of once per file, and `pnpm exec vitest run <file>` is never stale either
 * (an up-to-date `tsc -b` costs about a second).
 *
 * Two runs in one checkout (a watch run and a one-off run) must not write the same dist at once:
 * the build takes an exclusive kernel lock (`flock`, util-linux; it blocks on the lock instead of
 * polling). Without flock it runs as is.
 */
export default async function buildOnce(): Promise<void> {
  const run = promisify(execFile);
  const hasFlock = await run("flock", ["--version"]).then(
    () => true,
    () => false,
  );
  const build = ["pnpm", "run", "--silent", "build"];
  const [command, ...args] = hasFlock ? ["flock", LOCK, ...build] : build;
  try {
    await run(command as string, args, { cwd: ROOT, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    // tsc reports on stdout; surface it so a failure says which file broke the build.
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`pnpm build failed, so no test ran:\n${stdout}${stderr}`.slice(0, 8000));
  }
}
