import { randomUUID } from "node:crypto";
import type { SimEnvironment } from "@t3-connector/t3-sim";
import type { ShellMirror, ShellMirrorEvent, ShellMirrorStatus } from "../../src/mirror/index.js";
import type { ShellSnapshot, ThreadShell } from "../../src/t3/index.js";

/** Resolves with the first event of `mirror` that satisfies `predicate` (listening starts now). */
export function nextEvent(
  mirror: ShellMirror,
  predicate: (event: ShellMirrorEvent) => boolean,
): Promise<ShellMirrorEvent> {
  return new Promise((resolve) => {
    const stop = mirror.onChange((event) => {
      if (!predicate(event)) return;
      stop();
      resolve(event);
    });
  });
}

/** Resolves once `mirror` has `status` (at once when it already has it). */
export async function statusOf(mirror: ShellMirror, status: ShellMirrorStatus): Promise<void> {
  if (mirror.status === status) return;
  await nextEvent(mirror, (event) => event.type === "status" && event.status === status);
}

/** Resolves once the mirror applied an update of `threadId` (thread.updated or thread.removed). */
export function threadChange(mirror: ShellMirror, threadId: string, kind = "thread.updated") {
  return nextEvent(
    mirror,
    (event) =>
      event.type === "change" &&
      event.change.kind === kind &&
      "threadId" in event.change &&
      event.change.threadId === threadId,
  );
}

/** Sends one command through the simulator's model, as a T3 client would over the socket. */
export async function dispatch(env: SimEnvironment, command: Record<string, unknown>): Promise<void> {
  const outcome = await env.model.callUnary("orchestration.dispatchCommand", {
    commandId: randomUUID(),
    ...command,
  });
  if (outcome.kind !== "success") throw new Error(`command refused: ${JSON.stringify(outcome)}`);
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The parts of a shell a read shows, in a comparable order (the row order is not part of it). */
export function comparable(shell: ShellSnapshot) {
  return {
    threads: [...shell.threads].sort(byId),
    archivedThreads: [...shell.archivedThreads].sort(byId),
    projects: [...shell.projects].sort(byId),
  };
}

export function titleOf(shell: ShellSnapshot, threadId: string): string | undefined {
  return shell.threads.find((thread: ThreadShell) => thread.id === threadId)?.title;
}
