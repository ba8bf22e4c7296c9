import { describe, expect, it } from "vitest";
import { ConnectorError } from "../../src/errors.js";
import {
  createCursorCodec,
  type Page,
  type PageOrder,
  paginate,
  type QuerySignature,
} from "../../src/pagination/index.js";

interface Row {
  environmentId: string;
  threadId: string;
  updatedAt: number;
}

// The t3_threads order: newest first, then environment, then id.
const byRecency: PageOrder<Row> = {
  key: (row) => [row.updatedAt, row.environmentId, row.threadId],
  directions: ["desc", "asc", "asc"],
  version: (row) => row.updatedAt,
};

// A t3_buscar_threads-like order that does not follow the version stamp.
const byLocation: PageOrder<Row> = {
  key: (row) => [row.environmentId, row.threadId],
  directions: ["asc", "asc"],
  version: (row) => row.updatedAt,
};

const signature: QuerySignature = {
  tool: "t3_threads",
  filters: [null, "running", false, ""],
  environmentFilter: null,
  selectedEnvironmentIds: ["env-a", "env-b"],
  answeredEnvironmentIds: ["env-a", "env-b"],
};

function rows(count: number): Row[] {
  return Array.from({ length: count }, (_, index) => ({
    environmentId: index % 2 === 0 ? "env-a" : "env-b",
    threadId: `t-${String(index).padStart(2, "0")}`,
    // Pairs share a timestamp so the tie-breakers matter.
    updatedAt: 1_000 + Math.floor(index / 2),
  }));
}

function ids(page: Page<Row>): string[] {
  return page.items.map((row) => `${row.environmentId}/${row.threadId}`);
}

function catchError(run: () => unknown): ConnectorError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error("expected a ConnectorError");
}

describe("paginate", () => {
  it("walks every match exactly once, in key order, across pages", () => {
    const codec = createCursorCodec();
    const matches = rows(11);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = paginate(codec, matches, byRecency, { signature, cursor, limit: 4 });
      expect(page.total).toBe(11);
      expect(page.returned).toBe(page.items.length);
      seen.push(...ids(page));
      cursor = page.nextCursor;
      expect(page.truncated).toBe(cursor !== undefined);
      pages++;
    } while (cursor !== undefined);

    expect(pages).toBe(3);
    const expected = [...matches]
      .sort((a, b) => b.updatedAt - a.updatedAt || a.environmentId.localeCompare(b.environmentId))
      .map((row) => `${row.environmentId}/${row.threadId}`);
    expect(seen).toEqual(expected);
  });

  it("returns every match when no limit is given, without a next cursor", () => {
    const page = paginate(createCursorCodec(), rows(7), byRecency, { signature });
    expect(page.returned).toBe(7);
    expect(page.truncated).toBe(false);
    expect(page.nextCursor).toBeUndefined();
  });

  it("counts the total before slicing the page", () => {
    const page = paginate(createCursorCodec(), rows(30), byRecency, { signature, limit: 5 });
    expect(page).toMatchObject({ total: 30, returned: 5, truncated: true });
  });

  it("continues strictly after the last returned key when that item disappears", () => {
    const codec = createCursorCodec();
    const matches = rows(6);
    const first = paginate(codec, matches, byLocation, { signature, limit: 2 });
    const lastReturned = first.items.at(-1);
    const remaining = matches.filter((row) => row !== lastReturned);
    const second = paginate(codec, remaining, byLocation, {
      signature,
      cursor: first.nextCursor,
      limit: 2,
    });
    expect(ids(second)).toEqual(["env-a/t-04", "env-b/t-01"]);
    expect(ids(first)).toEqual(["env-a/t-00", "env-a/t-02"]);
  });

  it("drops items updated after the first page and counts them as changedSinceStart", () => {
    const codec = createCursorCodec();
    const matches = rows(6);
    const first = paginate(codec, matches, byLocation, { signature, limit: 2 });
    expect(first.changedSinceStart).toBeUndefined();

    // env-b/t-03 (not yet seen) and env-a/t-00 (already seen) change after the first page.
    const moved = matches.map((row) =>
      row.threadId === "t-03" || row.threadId === "t-00" ? { ...row, updatedAt: 9_999 } : row,
    );
    const second = paginate(codec, moved, byLocation, { signature, cursor: first.nextCursor });
    expect(ids(second)).toEqual(["env-a/t-04", "env-b/t-01", "env-b/t-05"]);
    expect(second.changedSinceStart).toBe(2);
    expect(second.total).toBe(6);
  });

  it("takes the cut from every first-page match, not only the returned ones", () => {
    const codec = createCursorCodec();
    // The newest row sorts last in this order, so the first page alone would under-estimate the cut.
    const matches = rows(6);
    const first = paginate(codec, matches, byLocation, { signature, limit: 2 });
    const second = paginate(codec, matches, byLocation, { signature, cursor: first.nextCursor });
    expect(second.changedSinceStart).toBeUndefined();
    expect(second.returned).toBe(4);
  });

  it("keeps the first page's cut on every later page", () => {
    const codec = createCursorCodec();
    const matches = rows(9);
    const first = paginate(codec, matches, byRecency, { signature, limit: 3 });
    const second = paginate(codec, matches, byRecency, { signature, cursor: first.nextCursor, limit: 3 });
    const touched = matches.map((row) => (row.threadId === "t-00" ? { ...row, updatedAt: 5_000 } : row));
    const third = paginate(codec, touched, byRecency, { signature, cursor: second.nextCursor, limit: 3 });
    // t-00 jumped to the top (already passed) and would otherwise be missed: it is counted, not shown.
    expect(ids(third)).toEqual(["env-b/t-03", "env-b/t-01"]);
    expect(third.changedSinceStart).toBe(1);
    expect(codec.decode(second.nextCursor ?? "").c).toBe(1_004);
  });

  it("refuses a cursor of another tool, filter, environment filter or environment selection", () => {
    const codec = createCursorCodec();
    const first = paginate(codec, rows(5), byRecency, { signature, limit: 2 });
    const variants: QuerySignature[] = [
      { ...signature, tool: "t3_projetos" },
      { ...signature, filters: [null, "failed", false, ""] },
      { ...signature, environmentFilter: "env-a" },
      { ...signature, selectedEnvironmentIds: ["env-a"], answeredEnvironmentIds: ["env-a"] },
    ];
    for (const other of variants) {
      const error = catchError(() =>
        paginate(codec, rows(5), byRecency, { signature: other, cursor: first.nextCursor }),
      );
      expect(error.code).toBe("invalid_cursor");
      expect(error.message).toContain("another query (different environment, tool or filters)");
      expect(error.message).toContain("without a cursor");
    }
  });

  it("reports coverage_changed when only the environments that answered differ", () => {
    const codec = createCursorCodec();
    const first = paginate(codec, rows(5), byRecency, { signature, limit: 2 });
    const error = catchError(() =>
      paginate(codec, rows(5), byRecency, {
        signature: { ...signature, answeredEnvironmentIds: ["env-a"] },
        cursor: first.nextCursor,
      }),
    );
    expect(error.code).toBe("coverage_changed");
    expect(error.message).toContain("environments that answered changed");
  });

  it("treats environment sets and filter object keys as unordered", () => {
    const codec = createCursorCodec();
    const withWoke: QuerySignature = { ...signature, filters: [...signature.filters, { woke: true, x: 1 }] };
    const first = paginate(codec, rows(5), byRecency, { signature: withWoke, limit: 2 });
    const reordered: QuerySignature = {
      ...withWoke,
      filters: [...signature.filters, { x: 1, woke: true }],
      selectedEnvironmentIds: ["env-b", "env-a"],
      answeredEnvironmentIds: ["env-b", "env-a"],
    };
    const second = paginate(codec, rows(5), byRecency, { signature: reordered, cursor: first.nextCursor });
    expect(second.returned).toBe(3);
  });

  it("refuses a limit below one", () => {
    const error = catchError(() =>
      paginate(createCursorCodec(), rows(2), byRecency, { signature, limit: 0 }),
    );
    expect(error.code).toBe("invalid_input");
  });

  it("refuses a cursor whose key does not fit the listing's order", () => {
    const codec = createCursorCodec();
    const first = paginate(codec, rows(5), byRecency, { signature, limit: 2 });
    const error = catchError(() =>
      paginate(codec, rows(5), byLocation, { signature, cursor: first.nextCursor }),
    );
    expect(error.code).toBe("invalid_cursor");
  });

  it("records no cut when the listing has no version stamp", () => {
    const codec = createCursorCodec();
    const unversioned: PageOrder<Row> = { key: byLocation.key, directions: byLocation.directions };
    const first = paginate(codec, rows(4), unversioned, { signature, limit: 1 });
    expect(first.nextCursor).toBeDefined();
    expect(codec.decode(first.nextCursor ?? "").c).toBeUndefined();
    const changed = rows(4).map((row) => ({ ...row, updatedAt: 99_999 }));
    const second = paginate(codec, changed, unversioned, { signature, cursor: first.nextCursor });
    expect(second.changedSinceStart).toBeUndefined();
    expect(second.returned).toBe(3);
  });
});
