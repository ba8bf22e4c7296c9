import type { ChildProcess } from "node:child_process";

/**
 * The ssh children this process started, so that they die with it. Only these are ever killed:
 * never a process found by name.
 */
const children = new Set<ChildProcess>();
const SIGNALS = ["SIGINT", "SIGTERM"] as const;
let installed = false;

function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  }
  children.clear();
}

function onExit(): void {
  killAll();
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  uninstall();
  // Our listener replaced Node's default action; when nobody else handles the signal, restore
  // the default by raising it again, so Ctrl-C still stops the process.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off("exit", onExit);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/** Remembers a child until it exits; installs the exit and signal hooks while any is alive. */
export function trackChild(child: ChildProcess): void {
  children.add(child);
  install();
  child.once("exit", () => {
    children.delete(child);
    if (children.size === 0) uninstall();
  });
}

/** Kills every tracked child now (what the exit and signal hooks do). */
export function killSpawnedTunnels(): void {
  killAll();
  uninstall();
}

/** How many spawned ssh children are still tracked (for tests and diagnostics). */
export function spawnedTunnelCount(): number {
  return children.size;
}
