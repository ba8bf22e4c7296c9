import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

/** Spawn a TypeScript script of this folder with the tiny runner (no build needed). */
export function spawnTsChild(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", here("ts-loader.mjs"), here(script), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Every stdout line of `child`, in order, with a way to wait for the n-th one. */
export function collectLines(child: ChildProcess): {
  lines: string[];
  waitFor(count: number): Promise<void>;
} {
  const lines: string[] = [];
  const waiters: Array<{ count: number; resolve: () => void; reject: (error: Error) => void }> = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  reader.on("line", (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (lines.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  child.on("exit", (code, signal) => {
    for (const waiter of waiters.splice(0)) {
      waiter.reject(new Error(`child exited (${code ?? signal}) after ${lines.length} lines: ${stderr}`));
    }
  });
  return {
    lines,
    waitFor: (count) =>
      lines.length >= count
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            waiters.push({ count, resolve, reject });
          }),
  };
}

/** SIGKILL and wait until the kernel has reaped it (a zombie would still answer kill(pid, 0)). */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
