import { readFileSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { makeTempDir, request, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Journal, LOCK_FILE, openJournal } from "../../src/journal/index.js";

let temp: TempDir;
const open: Journal[] = [];

beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((journal) => journal.close()));
  await temp.remove();
});

async function openTracked(): Promise<Journal> {
  const journal = await openJournal({ stateDir: temp.stateDir });
  open.push(journal);
  return journal;
}

/**
 * A pid no process has now, found without starting one (the unit tier runs in one process): the
 * highest pids, searched downwards, are almost never in use. Found once per file.
 */
let deadPid: () => number;
beforeAll(() => {
  let highest = 99_998;
  try {
    highest = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim()) - 1;
  } catch {
    // Not Linux: macOS and the BSDs stop below 99,999.
  }
  for (let pid = highest; pid > 1; pid -= 1) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") continue;
      deadPid = () => pid;
      return;
    }
  }
  throw new Error("no unused pid found");
});

async function writeLock(
  file: string,
  holder: { pid: number; startTicks: string | null; hostname?: string },
) {
  await mkdir(temp.stateDir, { recursive: true, mode: 0o700 });
  const content = {
    format: "t3-connector/journal-lock",
    hostname: hostname(),
    acquiredAt: "2026-01-01T00:00:00.000Z",
    nonce: "0".repeat(32),
    ...holder,
  };
  await writeFile(join(temp.stateDir, file), JSON.stringify(content), { mode: 0o600 });
}

async function ownStartTicks(): Promise<string> {
  const text = await readFile(`/proc/${process.pid}/stat`, "utf8");
  const ticks = text.slice(text.lastIndexOf(")") + 2).split(" ")[19];
  if (ticks === undefined) throw new Error("no start time");
  return ticks;
}

// A lock held by another live process needs a real child process: lock-held-elsewhere.e2e.test.ts.
describe("journal lock", () => {
  it("refuses a second journal on the same state directory while the first is open", async () => {
    const first = await openTracked();
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "journal_unavailable",
      details: { reason: "locked", pid: process.pid },
    });
    await first.close();
    const second = await openTracked();
    expect((await second.reserve(request("op-1"))).kind).toBe("reserved");
  });

  it("writes the lock 0600 with pid and start time, and removes it on close", async () => {
    const journal = await openTracked();
    const path = join(temp.stateDir, LOCK_FILE);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const content = JSON.parse(await readFile(path, "utf8"));
    expect(content).toMatchObject({
      pid: process.pid,
      startTicks: await ownStartTicks(),
      hostname: hostname(),
    });
    await journal.close();
    await expect(stat(path)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("takes over a stale lock whose pid is dead", async () => {
    await writeLock(LOCK_FILE, { pid: deadPid(), startTicks: "12345" });
    await openTracked();
  });

  it("takes over a lock whose pid now belongs to a process with another start time", async () => {
    await writeLock(LOCK_FILE, { pid: process.pid, startTicks: "1" });
    await openTracked();
  });

  it("never takes over a lock of a live pid whose start time it cannot compare", async () => {
    await writeLock(LOCK_FILE, { pid: process.pid, startTicks: null });
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "journal_unavailable",
    });
  });

  it("never takes over a lock written on another host", async () => {
    await writeLock(LOCK_FILE, { pid: deadPid(), startTicks: "1", hostname: "another-host.invalid" });
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "journal_unavailable",
      details: { reason: "locked" },
    });
  });

  it("refuses, naming the file, when an earlier takeover of a stale lock did not finish", async () => {
    await writeLock(LOCK_FILE, { pid: deadPid(), startTicks: "1" });
    await writeLock(`${LOCK_FILE}.takeover`, { pid: deadPid(), startTicks: "1" });
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toThrow(/journal\.lock\.takeover/);
  });

  it("refuses a lock file that is not a journal lock rather than guessing", async () => {
    await mkdir(temp.stateDir, { recursive: true, mode: 0o700 });
    await writeFile(join(temp.stateDir, LOCK_FILE), "", { mode: 0o600 });
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "journal_unavailable",
    });
  });
});
