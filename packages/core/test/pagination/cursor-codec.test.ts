import { describe, expect, it } from "vitest";
import { ConnectorError } from "../../src/errors.js";
import {
  CURSOR_FORMAT_VERSION,
  createCursorCodec,
  openCursor,
  paginate,
  type QueryIdentity,
} from "../../src/pagination/index.js";

const identity: QueryIdentity = {
  tool: "t3_projetos",
  filters: ["revisao"],
  environmentFilter: null,
  selectedEnvironmentIds: ["env-a"],
};

const order = {
  key: (id: string) => [id],
  directions: ["asc"] as const,
};

function firstCursor(codec = createCursorCodec()): string {
  const page = paginate(codec, ["a", "b", "c"], order, {
    signature: { ...identity, answeredEnvironmentIds: ["env-a"] },
    limit: 1,
  });
  if (page.nextCursor === undefined) throw new Error("expected a next cursor");
  return page.nextCursor;
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ConnectorError) return error.code;
    throw error;
  }
  return "no error";
}

describe("cursor codec", () => {
  it("issues opaque base64url cursors that round-trip their payload", () => {
    const codec = createCursorCodec();
    const cursor = codec.encode({
      v: CURSOR_FORMAT_VERSION,
      q: "abc:def",
      k: [1_700, "env", "t-1"],
      c: 1_800,
    });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(cursor)).toEqual({
      v: CURSOR_FORMAT_VERSION,
      q: "abc:def",
      k: [1_700, "env", "t-1"],
      c: 1_800,
    });
  });

  it("refuses a cursor whose payload was edited", () => {
    const codec = createCursorCodec();
    const cursor = firstCursor(codec);
    const [body, tag] = cursor.split(".");
    const payload = JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8"));
    payload.k = ["zzz"];
    const forged = `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${tag}`;
    expect(codeOf(() => codec.decode(forged))).toBe("invalid_cursor");
  });

  it("refuses a cursor issued by another server process", () => {
    const cursor = firstCursor(createCursorCodec());
    expect(codeOf(() => createCursorCodec().decode(cursor))).toBe("invalid_cursor");
  });

  it("accepts a cursor from a codec sharing the same key", () => {
    const key = new Uint8Array(32).fill(7);
    const cursor = firstCursor(createCursorCodec({ key }));
    expect(createCursorCodec({ key }).decode(cursor).k).toEqual(["a"]);
  });

  it("refuses malformed cursors", () => {
    const codec = createCursorCodec();
    for (const garbage of ["", "not a cursor", "abc", "a.b.c", `${"x".repeat(5000)}.y`, "e30.AAAA"]) {
      expect(codeOf(() => codec.decode(garbage))).toBe("invalid_cursor");
    }
  });

  it("refuses a correctly signed cursor of an older format version", () => {
    const codec = createCursorCodec();
    const old = codec.encode({ v: CURSOR_FORMAT_VERSION - 1, q: "abc:def", k: ["a"] });
    expect(codeOf(() => codec.decode(old))).toBe("invalid_cursor");
  });

  it("refuses a correctly signed payload with the wrong shape", () => {
    const codec = createCursorCodec();
    const shapes = [
      { v: CURSOR_FORMAT_VERSION, q: 1, k: ["a"] },
      { v: CURSOR_FORMAT_VERSION, q: "a:b", k: [] },
      { v: CURSOR_FORMAT_VERSION, q: "a:b", k: [{ nested: true }] },
      { v: CURSOR_FORMAT_VERSION, q: "a:b", k: ["a"], c: true },
    ];
    for (const shape of shapes) {
      // biome-ignore lint/suspicious/noExplicitAny: deliberately encoding payloads the type forbids
      expect(codeOf(() => codec.decode(codec.encode(shape as any)))).toBe("invalid_cursor");
    }
  });

  it("lets a tool check a cursor against its query before sweeping", () => {
    const codec = createCursorCodec();
    const cursor = firstCursor(codec);
    expect(openCursor(codec, cursor, identity).k).toEqual(["a"]);
    expect(codeOf(() => openCursor(codec, cursor, { ...identity, filters: ["other"] }))).toBe(
      "invalid_cursor",
    );
    // The early check ignores coverage: the answered set is only known after the sweep.
    expect(openCursor(codec, cursor, { ...identity }).v).toBe(CURSOR_FORMAT_VERSION);
  });
});
