import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseOAuthSettings } from "../src/index.js";
import { ensureStateDir, listSessions, SessionBook } from "../src/state/index.js";

/** A clock the test moves by hand. */
function manualClock(start = 1_800_000_000_000) {
  let now = start;
  return { now: () => now, monotonic: () => now, advance: (ms: number) => (now += ms) };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function openBook(section: Record<string, unknown> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-sessions-"));
  dirs.push(dir);
  const settings = parseOAuthSettings(
    { issuer: "https://mcp.example.com", stateDir: path.join(dir, "state"), ...section },
    { configPath: "test" },
  );
  await ensureStateDir(settings.stateDir);
  const clock = manualClock();
  const book = await SessionBook.open(settings, clock, () => {});
  const start = () =>
    book.create({
      clientId: "c",
      clientName: "Client",
      scope: ["t3:read"],
      resource: settings.resource,
      credentialId: "k",
    });
  return { book, clock, settings, start };
}

describe("the session book", () => {
  it("writes each tool call's time where oauth sessions reads it", async () => {
    const { book, clock, settings, start } = await openBook();
    const { session } = await start();
    for (const step of [5_000, 1_000, 30_000]) {
      clock.advance(step);
      await book.touch(session.id);
      const [listed] = await listSessions(settings.stateDir);
      expect(listed?.lastActivityAt).toBe(new Date(clock.now()).toISOString());
    }
    // A burst: every call is recorded once the queued write has run.
    clock.advance(1_000);
    await Promise.all([book.touch(session.id), book.touch(session.id), book.touch(session.id)]);
    const [listed] = await listSessions(settings.stateDir);
    expect(listed?.lastActivityAt).toBe(new Date(clock.now()).toISOString());
  });

  it("ends a session after the idle window, counting only tool calls (a refresh does not count)", async () => {
    const { book, clock, start } = await openBook({ idleMinutes: 10 });
    const { session, tokens } = await start();
    clock.advance(9 * 60_000);
    await book.touch(session.id);
    clock.advance(9 * 60_000);
    const refreshed = await book.refresh(tokens.refreshToken, "c");
    expect(await book.verifyAccess(refreshed.accessToken)).toBeDefined();
    // The refresh did not restart the window: 10 minutes after the last tool call it is over.
    clock.advance(60_000);
    expect(await book.verifyAccess(refreshed.accessToken)).toBeUndefined();
    expect(await book.list()).toEqual([]);
  });

  it("cuts an access token to the session's idle deadline and honours the maximum age", async () => {
    const { book, clock, start } = await openBook({ idleMinutes: 2, maxAgeHours: 1 });
    const { session, tokens } = await start();
    expect(tokens.expiresIn).toBeLessThanOrEqual(60);
    // A busy session: a tool call and a refresh every 30 s never lets the idle window pass...
    let refresh = tokens.refreshToken;
    for (let step = 0; step < 119; step += 1) {
      clock.advance(30_000);
      await book.touch(session.id);
      refresh = (await book.refresh(refresh, "c")).refreshToken;
    }
    // ...but an hour after consent the maximum age ends it.
    clock.advance(30_000);
    await expect(book.refresh(refresh, "c")).rejects.toMatchObject({ code: "invalid_grant" });
  });

  it("keeps sessions across a restart, storing no token in clear", async () => {
    const { book, settings, clock, start } = await openBook();
    const { tokens } = await start();
    const reopened = await SessionBook.open(settings, clock, () => {});
    expect(await reopened.list()).toHaveLength(1);
    const { readFile } = await import("node:fs/promises");
    const text = await readFile(path.join(settings.stateDir, "sessions.json"), "utf8");
    expect(text).not.toContain(tokens.refreshToken);
    expect(text).not.toContain(tokens.accessToken);
    void book;
  });

  it("answers a refresh of a revoked session saying what happened and what to do", async () => {
    const { book, start } = await openBook();
    const { session, tokens } = await start();
    await book.end(session.id, "revoked");
    await expect(book.refresh(tokens.refreshToken, "c")).rejects.toMatchObject({
      code: "invalid_grant",
      message: expect.stringMatching(/the session was revoked or ended.*sign in again \(ChatGPT: Reconnect/),
    });
  });
});
