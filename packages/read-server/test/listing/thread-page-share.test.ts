/**
 * `t3_threads` takes its pages from ordered thread indexes (a share per environment, merged) when
 * no search or woke filter is asked for. That path must answer exactly what the full scan answers
 * (every visible row summarized, filtered, sorted and paginated): same items, total, hidden count,
 * truncation, cursors and moved count, page after page, also when rows move between pages.
 * Checked over seeded random environments, filters and page sizes.
 */
import { createCursorCodec, paginate, paginatePresorted } from "@t3-connector/core/pagination";
import { filterThreadList } from "@t3-connector/core/state";
import type { ShellSnapshot, ThreadShell } from "@t3-connector/core/t3";
import {
  type ShellView,
  threadItems,
  threadPageShare,
  visibleThreads,
} from "@t3-connector/mcp-tools/read-answers";
import { THREAD_LISTING_ORDER } from "@t3-connector/mcp-tools/read-contracts";
import { seededRandom } from "@t3-connector/test-support/seeded-random";
import { describe, expect, it } from "vitest";

const NOW = Date.parse("2026-01-01T01:00:00.000Z");
const STATUSES = ["idle", "completed", "running", "failed", "interrupted"];

function row(next: () => number, id: string, minute?: number): ThreadShell {
  const status = STATUSES[Math.floor(next() * STATUSES.length)] as string;
  const at = minute ?? Math.floor(next() * 8);
  return {
    id,
    projectId: `p${1 + Math.floor(next() * 3)}`,
    title: `thread ${id}`,
    status,
    latestRunId: status !== "idle" || next() < 0.3 ? `run-${id}` : null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: next() < 0.05 ? "unparsable" : `2026-01-01T00:${String(at).padStart(2, "0")}:00.000Z`,
    archivedAt: next() < 0.1 ? "2026-01-01T00:00:00.000Z" : null,
  } as ThreadShell;
}

function view(environmentId: string, threads: ThreadShell[], allowed: string[]): ShellView {
  const shell = {
    schemaVersion: 2,
    snapshotSequence: 1,
    threads,
    archivedThreads: [],
    projects: ["p1", "p2", "p3"].map((id) => ({ id, title: id })),
  } as ShellSnapshot;
  return {
    environment: { alias: environmentId, environmentId, name: null },
    shell,
    allowedProjects: new Set(allowed),
    readAt: new Date(NOW).toISOString(),
    source: "http",
  };
}

type Filter = { projectId?: string; state?: "completed" | "no_run" | "failed"; includeNoRun?: boolean };

describe("t3_threads pages from ordered indexes", () => {
  for (const seed of [11, 12, 13, 14, 15, 16]) {
    it(`answer exactly what the full scan answers, page after page (seed ${seed})`, () => {
      const next = seededRandom(seed);
      const codec = createCursorCodec();
      const threadsOf = (prefix: string) => Array.from({ length: 60 }, (_, i) => row(next, `${prefix}${i}`));
      let views = [
        view("env-a", threadsOf("a"), ["p1", "p2"]),
        view("env-b", threadsOf("b"), ["p1", "p2", "p3"]),
      ];
      const filters: Filter[] = [{}, { includeNoRun: true }, { state: "completed" }, { projectId: "p2" }];
      const filter = filters[seed % filters.length] as Filter;
      const limit = 1 + Math.floor(next() * 9);
      const signature = {
        tool: "t3_threads",
        filters: [filter.projectId ?? null, filter.state ?? null, filter.includeNoRun ?? false, null],
        environmentFilter: null,
        selectedEnvironmentIds: ["env-a", "env-b"],
        answeredEnvironmentIds: ["env-a", "env-b"],
      };
      let scannedCursor: string | undefined;
      let indexedCursor: string | undefined;
      for (let pageNumber = 0; pageNumber < 40; pageNumber++) {
        const scannedParts = views.map((v) => {
          let threads = visibleThreads(v);
          if (filter.projectId !== undefined)
            threads = threads.filter((t) => t.projectId === filter.projectId);
          return filterThreadList(threadItems(v, threads, NOW), {
            ...(filter.state === undefined ? {} : { state: filter.state }),
            includeNoRun: filter.includeNoRun ?? false,
          });
        });
        const scanned = paginate(
          codec,
          scannedParts.flatMap((part) => part.threads),
          THREAD_LISTING_ORDER,
          { signature, cursor: scannedCursor, limit },
        );
        const cursorPayload = indexedCursor === undefined ? undefined : codec.decode(indexedCursor);
        const shares = views.map((v) =>
          threadPageShare(
            v,
            {
              allowedProjects: v.allowedProjects,
              projectId: filter.projectId,
              state: filter.state,
              includeNoRun: filter.includeNoRun ?? false,
            },
            cursorPayload,
            limit,
            NOW,
          ),
        );
        const indexed = paginatePresorted(codec, shares, THREAD_LISTING_ORDER, {
          signature,
          cursor: indexedCursor,
          limit,
        });
        const { nextCursor: scannedNext, ...scannedRest } = scanned;
        const { nextCursor: indexedNext, ...indexedRest } = indexed;
        expect(indexedRest).toEqual(scannedRest);
        expect(shares.map((share) => share.hiddenNoRun)).toEqual(
          scannedParts.map((part) => part.hiddenNoRun),
        );
        expect(indexedNext === undefined).toBe(scannedNext === undefined);
        if (scannedNext !== undefined && indexedNext !== undefined) {
          expect(codec.decode(indexedNext)).toEqual(codec.decode(scannedNext));
        }
        if (scannedNext === undefined) break;
        scannedCursor = scannedNext;
        indexedCursor = indexedNext;
        // Between pages some rows move to the top (newer than the first page's cut) or appear.
        if (pageNumber % 2 === 0) {
          views = views.map((v, n) =>
            view(
              v.environment.environmentId,
              [...v.shell.threads, row(next, `${n}-new-${pageNumber}`, 30 + pageNumber)],
              [...v.allowedProjects],
            ),
          );
        }
      }
    });
  }
});
