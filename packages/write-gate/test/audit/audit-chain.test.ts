/**
 * The audit log's hash chain on real files (ADR 0006 §15): a log written before the chain is
 * adopted by one `audit_chain_started` line that covers its bytes, an edit of those old lines is
 * noticed afterwards, a torn last line (a crash inside an append) is dropped, and the anchor the
 * journal's marker keeps catches lines cut from the end.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AUDIT_FILE,
  anchorProblem,
  auditWitness,
  checkAuditText,
  openAuditLog,
} from "../../src/audit/index.js";

let stateDir: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "t3c-audit-chain-"));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

const path = () => join(stateDir, AUDIT_FILE);
const LEGACY = [
  '{"at":"2026-11-01T10:00:00.000Z","event":"gate_started","bootId":"b1","environments":["env-a"]}',
  '{"at":"2026-11-01T10:01:00.000Z","event":"dispatch","leaseId":"l1","action":"thread.title","environmentId":"env-a","operationId":"op-old","state":"completed","code":null,"replayed":false}',
].join("\n");

describe("the audit log's chain", () => {
  it("adopts a log written before the chain, and notices an edit of those lines afterwards", async () => {
    await writeFile(path(), `${LEGACY}\n`, { mode: 0o600 });
    const log = await openAuditLog({ stateDir, journalGeneration: () => 7 });
    await log.append({ event: "gate_started", bootId: "b2", environments: ["env-a"] });
    await log.close();
    const check = checkAuditText(await readFile(path(), "utf8"));
    expect(check).toMatchObject({ status: "intact", lines: 4, journalGeneration: 7, problems: [] });
    expect(JSON.parse((await readFile(path(), "utf8")).split("\n")[2] as string)).toMatchObject({
      event: "audit_chain_started",
      unchainedLines: 2,
    });

    const text = await readFile(path(), "utf8");
    await writeFile(path(), text.replace('"op-old"', '"op-odd"'));
    const edited = await auditWitness(stateDir).check(null);
    expect(edited.findings).toEqual([
      expect.objectContaining({
        file: AUDIT_FILE,
        detail: expect.stringContaining("line 3 does not follow"),
      }),
    ]);
    await expect(openAuditLog({ stateDir })).rejects.toMatchObject({ code: "journal_damaged" });
  });

  it("drops a torn last line, and chains the next append after the last complete one", async () => {
    const log = await openAuditLog({ stateDir });
    await log.append({ event: "gate_started", bootId: "b1", environments: [] });
    await log.close();
    await writeFile(path(), `${await readFile(path(), "utf8")}{"at":"2026-`, { flag: "w" });
    const reopened = await openAuditLog({ stateDir });
    await reopened.append({ event: "gate_stopped", bootId: "b1", reason: "stopped" });
    await reopened.close();
    expect(checkAuditText(await readFile(path(), "utf8"))).toMatchObject({
      status: "intact",
      lines: 2,
      torn: false,
    });
  });

  it("an anchor catches lines cut from the end, which the chain alone cannot", async () => {
    const log = await openAuditLog({ stateDir });
    for (const bootId of ["b1", "b2", "b3"])
      await log.append({ event: "gate_started", bootId, environments: [] });
    const anchor = log.anchor();
    await log.close();
    const lines = (await readFile(path(), "utf8")).trimEnd().split("\n");
    await writeFile(path(), `${lines.slice(0, 2).join("\n")}\n`);
    const cut = checkAuditText(await readFile(path(), "utf8"));
    expect(cut.status).toBe("intact");
    expect(anchorProblem(cut, anchor)).toContain("has 2 line(s), but the journal's identity file recorded");
  });
});
