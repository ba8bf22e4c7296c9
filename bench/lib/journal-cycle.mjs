// The journal's full write cycle (reserve → markUncertain → complete: the three mutations of one
// write) with `records` settled records retained, measured against the built journal
// (packages/write-engine/dist: run `pnpm build` first).
//
// One sample = one write's three awaited mutations, writes one after the other. The fsyncs are
// counted by wrapping the journal's injected file system (every FileHandle.sync/datasync, the
// kept-open directory handle included), so `fsyncsPerWrite` is measured, not assumed; it includes
// the sealing and manifest writes that a write's completions trigger (amortised).
//
// Used by bench/journal.mjs and by bench/write-path.mjs (`journalCycleP99Ms`).
import * as nodeFs from "node:fs/promises";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJournal } from "../../packages/write-engine/dist/journal/index.js";
import { percentile, round } from "./stats.mjs";

const WARMUP = 20;
const FILL_BATCH = 500;
const identity = {
  environmentId: "env-bench",
  destination: "t3://env-bench",
  caller: "channel:bench|tunnel:1",
};
const input = (i) => ({ threadId: `thread-${i % 97}`, text: "x".repeat(200), clientRequestId: `op-${i}` });

/** The node file system with every fsync counted. */
function countingFs(counter) {
  const count = (handle) => {
    for (const name of ["sync", "datasync"]) {
      const original = handle[name].bind(handle);
      handle[name] = async () => {
        counter.fsyncs += 1;
        return original();
      };
    }
    return handle;
  };
  return { ...nodeFs, open: async (...args) => count(await nodeFs.open(...args)) };
}

/**
 * @param {{records?: number, samples?: number, baseline?: boolean, reopen?: boolean}} options
 *   `baseline`: also time a raw writeFile + fsync of a small file before each write (same disk,
 *   same moment); `reopen`: also time a close and reopen of the filled journal; `journalOptions`:
 *   passed to openJournal (segment sizes, to compare settings).
 * @returns {Promise<{journalCycleP50Ms: number, journalCycleP99Ms: number, fsyncsPerWrite: number,
 *   samples: number, records: number, mutationP50Ms: number, mutationP99Ms: number,
 *   baselineP50Ms?: number, baselineP99Ms?: number, reopenMs?: number, reopenedRecords?: number,
 *   segments: number}>}
 */
export async function measureJournalCycle({
  records = 10_000,
  samples = 200,
  baseline = false,
  reopen = false,
  journalOptions = {},
} = {}) {
  const root = await mkdtemp(join(tmpdir(), "t3-journal-cycle-"));
  const stateDir = join(root, "state");
  const counter = { fsyncs: 0 };
  const fs = countingFs(counter);
  try {
    let journal = await openJournal({ stateDir, fs, ...journalOptions });
    // Fill: `records` settled records (most sealed into segments), in concurrent batches.
    for (let start = 0; start < records; start += FILL_BATCH) {
      const batch = Array.from({ length: Math.min(FILL_BATCH, records - start) }, (_, n) => start + n);
      await Promise.all(
        batch.map(async (i) => {
          const { record } = await journal.reserve({
            ...identity,
            operationId: `fill-${i}`,
            action: "thread.send",
            input: input(i),
          });
          await journal.markUncertain(record.key, { commandId: `c-${i}`, messageId: `c-${i}` });
          await journal.complete(record.key, { sequence: i });
        }),
      );
    }
    await journal.list({ states: ["uncertain"] }); // waits for the sealing the fill queued

    const baselineFile = join(stateDir, "baseline.json");
    const baselineText = JSON.stringify({
      key: "k".repeat(64),
      state: "completed",
      receipt: { sequence: 1 },
    });
    const baselineWrite = async () => {
      const handle = await open(baselineFile, "w", 0o600);
      try {
        await handle.writeFile(baselineText);
        await handle.sync();
      } finally {
        await handle.close();
      }
    };

    const cycles = [];
    const mutations = [];
    const baselines = [];
    let fsyncs = 0;
    for (let i = 0; i < WARMUP + samples; i += 1) {
      const measured = i >= WARMUP;
      if (baseline) {
        const b0 = performance.now();
        await baselineWrite();
        if (measured) baselines.push(performance.now() - b0);
      }
      const before = counter.fsyncs;
      const t0 = performance.now();
      const { record } = await journal.reserve({
        ...identity,
        operationId: `bench-${i}`,
        action: "thread.send",
        input: input(i),
      });
      const t1 = performance.now();
      await journal.markUncertain(record.key, { commandId: `b-${i}`, messageId: `b-${i}` });
      const t2 = performance.now();
      await journal.complete(record.key, { sequence: records + i });
      const t3 = performance.now();
      if (!measured) continue;
      fsyncs += counter.fsyncs - before;
      cycles.push(t3 - t0);
      mutations.push(t1 - t0, t2 - t1, t3 - t2);
    }
    const stats = journal.stats();
    const result = {
      journalCycleP50Ms: round(percentile(cycles, 50)),
      journalCycleP99Ms: round(percentile(cycles, 99)),
      fsyncsPerWrite: round(fsyncs / samples),
      samples,
      records: stats.retained,
      segments: stats.segments,
      mutationP50Ms: round(percentile(mutations, 50)),
      mutationP99Ms: round(percentile(mutations, 99)),
    };
    if (baseline) {
      result.baselineP50Ms = round(percentile(baselines, 50));
      result.baselineP99Ms = round(percentile(baselines, 99));
    }
    await journal.close();
    if (reopen) {
      const started = performance.now();
      journal = await openJournal({ stateDir });
      result.reopenMs = Math.round(performance.now() - started);
      result.reopenedRecords = journal.stats().retained;
      await journal.close();
    }
    return result;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
