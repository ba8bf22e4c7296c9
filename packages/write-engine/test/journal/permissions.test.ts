import { chmod, mkdir, readdir, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir, request, type TempDir } from "@t3-connector/test-support/journal-helpers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Journal, openJournal } from "../../src/journal/index.js";

let temp: TempDir;

beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.remove();
});

async function settleMany(journal: Journal, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const { record } = await journal.reserve(request(`op-${i}`));
    await journal.refuse(record.key, { code: "scope_denied", message: "outside the lease" });
  }
}

/** A journal written and closed, to tamper with its files before the next open. */
async function writtenJournal(): Promise<string> {
  const journal = await openJournal({ stateDir: temp.stateDir, segmentRecords: 2, recentRecords: 0 });
  await settleMany(journal, 2);
  await journal.close();
  return join(temp.stateDir, "journal");
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe("state directory and file permissions", () => {
  it("creates the state and journal directories 0700 and every journal file 0600", async () => {
    const journal = await openJournal({ stateDir: temp.stateDir, segmentRecords: 2, recentRecords: 1 });
    await settleMany(journal, 4);
    await journal.list(); // waits until sealing is done
    expect(journal.stats().segments).toBeGreaterThan(0);
    expect(await mode(temp.stateDir)).toBe(0o700);
    expect(await mode(join(temp.stateDir, "journal"))).toBe(0o700);
    expect(await mode(join(temp.stateDir, "journal.lock"))).toBe(0o600);
    const names = await readdir(join(temp.stateDir, "journal"));
    expect(names).toContain("active.json");
    for (const name of names) expect(await mode(join(temp.stateDir, "journal", name)), name).toBe(0o600);
    await journal.close();
  });

  it("refuses a state directory that is a symlink, and writes nothing through it", async () => {
    const real = join(temp.path, "real");
    await mkdir(real, { mode: 0o700 });
    await symlink(real, temp.stateDir);
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "state_dir_invalid",
      // The operator is told which path to fix.
      message: expect.stringContaining(temp.stateDir),
    });
    expect(await readdir(real)).toEqual([]);
  });

  it("refuses a journal directory that is a symlink", async () => {
    const real = join(temp.path, "elsewhere");
    await mkdir(real, { mode: 0o700 });
    await mkdir(temp.stateDir, { mode: 0o700 });
    await symlink(real, join(temp.stateDir, "journal"));
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "state_dir_invalid",
    });
  });

  it("refuses an active journal file that is a symlink", async () => {
    const directory = await writtenJournal();
    const decoy = join(temp.path, "decoy.json");
    await writeFile(
      decoy,
      JSON.stringify({ format: "t3-connector/journal-active", version: 1, records: {} }),
      {
        mode: 0o600,
      },
    );
    await rm(join(directory, "active.json"));
    await symlink(decoy, join(directory, "active.json"));
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "state_dir_invalid",
      message: expect.stringContaining(join(directory, "active.json")),
    });
  });

  it("refuses a sealed segment file that is a symlink", async () => {
    const directory = await writtenJournal();
    const segment = (await readdir(directory)).find((name) => name.startsWith("segment-"));
    expect(segment).toBeDefined();
    await rename(join(directory, segment as string), join(temp.path, "moved.json"));
    await symlink(join(temp.path, "moved.json"), join(directory, segment as string));
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "state_dir_invalid",
    });
  });

  it("refuses a lock file that is a symlink", async () => {
    await mkdir(temp.stateDir, { mode: 0o700 });
    await writeFile(join(temp.path, "target"), "{}", { mode: 0o600 });
    await symlink(join(temp.path, "target"), join(temp.stateDir, "journal.lock"));
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "state_dir_invalid",
    });
  });

  it("refuses a state directory that other users can enter", async () => {
    await mkdir(temp.stateDir, { mode: 0o700 });
    await chmod(temp.stateDir, 0o755);
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "state_dir_invalid",
    });
  });

  it("refuses a journal file that other users can read", async () => {
    const directory = await writtenJournal();
    await chmod(join(directory, "active.json"), 0o644);
    await expect(openJournal({ stateDir: temp.stateDir })).rejects.toMatchObject({
      code: "state_dir_invalid",
    });
  });
});
