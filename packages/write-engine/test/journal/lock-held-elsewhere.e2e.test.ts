/**
 * The journal lock against a real second process: refused while that process lives, taken over
 * once it was killed. A child process, so this lives in the e2e tier.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir, request, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Journal, LOCK_FILE, openJournal } from "../../src/journal/index.js";
import { collectLines, killHard, spawnTsChild } from "./support/child.js";

let temp: TempDir;
const open: Journal[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((journal) => journal.close()));
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  await temp.remove();
});

async function openTracked(): Promise<Journal> {
  const journal = await openJournal({ stateDir: temp.stateDir });
  open.push(journal);
  return journal;
}

describe("journal lock", () => {
  it("refuses while another live process holds it, and takes it over once that process was killed", async () => {
    const child = spawnTsChild("hold-lock-child.ts", [temp.stateDir]);
    cleanups.push(() => killHard(child));
    await collectLines(child).waitFor(1);
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "journal_unavailable",
      details: { reason: "locked", pid: child.pid },
    });
    await killHard(child);
    const journal = await openTracked();
    expect((await journal.reserve(request("op-1"))).kind).toBe("reserved");
    const content = JSON.parse(await readFile(join(temp.stateDir, LOCK_FILE), "utf8"));
    expect(content.pid).toBe(process.pid);
  });
});
