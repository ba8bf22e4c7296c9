/**
 * A revocation from the terminal ends its session at once (ADR 0049): the watch on the state
 * directory re-reads `revocations.json` as `t3-connector oauth revoke | revoke-all` writes it (the
 * library calls the CLI makes), and the periodic re-check ends it alone where no watch event
 * comes. Each test waits on the session's end event; the re-check is fired by hand, never slept on.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TimerHandle, Timers } from "@t3-connector/core/t3";
import { afterEach, describe, expect, it } from "vitest";
import { parseOAuthSettings } from "../src/index.js";
import {
  ensureStateDir,
  revokeAllSessions,
  revokeSession,
  SessionBook,
  type SessionEndReason,
  watchRevocations,
} from "../src/state/index.js";

/** Timers that fire only when the test says so. */
class HandTimers implements Timers {
  readonly armed = new Set<{ callback: () => void; ms: number }>();

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const entry = { callback, ms };
    this.armed.add(entry);
    return { cancel: () => this.armed.delete(entry) };
  }

  fire(): void {
    const due = [...this.armed];
    this.armed.clear();
    for (const entry of due) entry.callback();
  }
}

const dirs: string[] = [];
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function openBook() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-revocation-watch-"));
  dirs.push(dir);
  const settings = parseOAuthSettings(
    { issuer: "https://mcp.example.com", stateDir: path.join(dir, "state") },
    { configPath: "test" },
  );
  await ensureStateDir(settings.stateDir);
  const clock = { now: () => Date.now(), monotonic: () => performance.now() };
  const book = await SessionBook.open(settings, clock, () => {});
  const start = async () =>
    (
      await book.create({
        clientId: "c",
        clientName: "Client",
        scope: ["t3:read", "t3:write"],
        resource: settings.resource,
        credentialId: "k",
      })
    ).session.id;
  /** Resolves with the reason once `sessionId` ends. */
  const ended = (sessionId: string) =>
    new Promise<SessionEndReason>((resolve) => {
      book.onEnded((id, reason) => {
        if (id === sessionId) resolve(reason);
      });
    });
  return { book, settings, clock, start, ended };
}

describe("the revocation watch", () => {
  it("ends a session revoked from the terminal without any request, on the directory's watch alone", async () => {
    const { book, settings, start, ended } = await openBook();
    const timers = new HandTimers();
    const watch = watchRevocations({
      stateDir: settings.stateDir,
      sync: () => book.syncRevocations(),
      log: () => {},
      timers,
    });
    closers.push(() => watch.close());
    const revoked = await start();
    const kept = await start();
    const ending = ended(revoked);
    await revokeSession(settings.stateDir, revoked);
    // The re-check is never fired here: only the watch event can end it.
    expect(await ending).toBe("terminal");
    expect((await book.list()).map((session) => session.id)).toEqual([kept]);
  });

  it("ends every session on revoke-all by the periodic re-check when the watch cannot start", async () => {
    const { book, settings, clock, start, ended } = await openBook();
    const timers = new HandTimers();
    const logged: string[] = [];
    const watch = watchRevocations({
      stateDir: settings.stateDir,
      sync: () => book.syncRevocations(),
      log: (line) => logged.push(line),
      timers,
      recheckMs: 5_000,
      watchDir: () => {
        throw Object.assign(new Error("inotify watch limit reached"), { code: "ENOSPC" });
      },
    });
    closers.push(() => watch.close());
    expect(logged.join("\n")).toContain("re-checking revocations periodically");
    const first = await start();
    const second = await start();
    const endings = Promise.all([ended(first), ended(second)]);
    expect(await revokeAllSessions(settings.stateDir, clock)).toBe(2);
    expect([...timers.armed].map((entry) => entry.ms)).toEqual([5_000]);
    timers.fire();
    expect(await endings).toEqual(["terminal", "terminal"]);
    // It re-arms itself for the next change, and close() disarms it.
    expect(timers.armed.size).toBe(1);
    watch.close();
    expect(timers.armed.size).toBe(0);
  });
});
