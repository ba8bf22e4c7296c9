import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT, repoFiles } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// One HTTP edge (ADR 0056): every body an HTTP server of ours takes, and every answer it fetches
// over `fetch`, is read by core's one bounded reader, and every Host and Origin is compared by
// core's one check (`packages/core/src/http-edge/`). A second reader or a second comparison
// written anywhere else in `packages/*/src` fails here, naming the file and the line, so the edge
// cannot be written twice again.

const KIT = "packages/core/src/http-edge/";

/** What only the kit may do, each with what to use instead. */
const ONLY_IN_THE_KIT: ReadonlyArray<{
  what: string;
  pattern: RegExp;
  use: string;
  /** Files where the pattern is not ours to bound, each with its reason. */
  except?: ReadonlyMap<string, string>;
}> = [
  {
    what: "a web stream body read chunk by chunk",
    pattern: /\.getReader\(/,
    use: "readBoundedBody from @t3-connector/core/http-edge",
  },
  {
    what: "a declared Content-Length read",
    pattern: /\.(get|header)\(\s*["'`]content-length["'`]\s*\)/i,
    use: "readBoundedBody (it refuses a declared length over the cap unread)",
  },
  {
    what: "a request body read whole, unbounded",
    pattern: /\b(c\.req|req|request|c\.req\.raw|raw)\.(arrayBuffer|text|json|blob|formData|parseBody)\(/,
    use: "readBoundedBody, then parseJsonBytes or utf8Text",
  },
  {
    what: "an answer fetched over fetch read whole, unbounded (a webhook receiver's, a peer's)",
    pattern: /\b(response|res|answer|reply)\.(arrayBuffer|text|json|blob|formData)\(/,
    use: "readBoundedBody on the Response, then parseJsonBytes or utf8Text",
    except: new Map([
      ["packages/oauth/src/page/sign-in-page.ts", "the sign-in page's own script, in the person's browser"],
      [
        "packages/write-gate/src/app/remote-approval-page.ts",
        "the approval page's own script, in the person's browser",
      ],
      ["packages/write-gate/src/app/inbox-page.ts", "the inbox page's own script, in the person's browser"],
    ]),
  },
  { what: "Hono's body limit", pattern: /hono\/body-limit/, use: "readBoundedBody" },
  {
    what: "a Host or Origin header read",
    pattern: /\.(get|header)\(\s*["'`](host|origin)["'`]\s*\)/i,
    use: "checkHost / checkOrigin / checkHostOrigin (or hostAndOrigin to pass a value on)",
  },
];

/**
 * Node stream readers (`on("data")`) left outside the kit, each of an answer from a peer we run,
 * bounded where it is read; a server's request body never. A new one fails until it is listed
 * here with its reason, or uses the kit (`Readable.toWeb` makes a Node stream a web one).
 */
const NODE_STREAM_READERS = new Map([
  ["packages/core/src/t3/rpc/socket.ts", "a refused WebSocket upgrade's body, capped"],
  ["packages/write-bridge/src/relay-connections.ts", "the gate's relay answer, capped by its strict parser"],
  ["packages/t3-sim/src/transport/environment-server.ts", "the simulator's own server (tests)"],
]);

function sources(): string[] {
  return repoFiles("packages").filter(
    (file) => /^packages\/[^/]+\/src\/.*\.ts$/.test(file) && !file.endsWith(".generated.ts"),
  );
}

function read(file: string): string {
  try {
    return readFileSync(path.join(REPO_ROOT, file), "utf8");
  } catch {
    return ""; // deleted in the work tree but still listed
  }
}

function hits(pattern: RegExp, files: readonly string[]): string[] {
  return files.flatMap((file) =>
    read(file)
      .split("\n")
      .flatMap((line, index) => (pattern.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
  );
}

describe("one HTTP edge", () => {
  const outside = sources().filter((file) => !file.startsWith(KIT));

  it("finds the kit and the sources it guards", () => {
    expect(sources()).toContain(`${KIT}bounded-body.ts`);
    expect(sources()).toContain(`${KIT}host-origin.ts`);
    expect(outside.length).toBeGreaterThan(100);
  });

  it.each(ONLY_IN_THE_KIT)("has no $what outside the kit", ({ pattern, use, except }) => {
    const checked = outside.filter((file) => !except?.has(file));
    expect(hits(pattern, checked), `use ${use}`).toEqual([]);
  });

  it("reads every answer a webhook receiver sends through the bounded reader (events/)", () => {
    const events = outside.filter((file) => file.startsWith("packages/events/src/"));
    expect(events).toContain("packages/events/src/delivery.ts");
    // The one POST to a receiver, and its answer read by the kit.
    expect(hits(/\bfetch\(/, events).map((hit) => hit.split(":")[0])).toEqual([
      "packages/events/src/delivery.ts",
    ]);
    expect(read("packages/events/src/delivery.ts")).toMatch(
      /readBoundedBody\(response, \{ maxBytes: RECEIVER_ANSWER_MAX_BYTES \}\)/,
    );
  });

  it("has only the listed Node stream readers outside the kit", () => {
    // A child process's output is not an HTTP body.
    const readers = new Set(
      hits(/\.on\(\s*["']data["']/, outside)
        .filter((hit) => !/\b(stdout|stderr)\b/.test(hit))
        .map((hit) => hit.split(":")[0] ?? ""),
    );
    const unlisted = [...readers].filter((file) => !NODE_STREAM_READERS.has(file));
    expect(unlisted, "read it with readBoundedBody, or list it with its reason").toEqual([]);
  });

  it("catches a second reader or Host check if one is written (the patterns bite)", () => {
    const planted = [
      "const reader = request.body.getReader();",
      'const n = Number(c.req.header("content-length"));',
      "const bytes = await c.req.raw.arrayBuffer();",
      'if (c.req.header("host") !== expected) return refuse();',
      'if (headers.get("Origin") !== origin) throw refusal;',
      "await response.arrayBuffer().catch(() => undefined);",
      "const answer = await res.json();",
    ];
    for (const line of planted) {
      expect(
        ONLY_IN_THE_KIT.some(({ pattern }) => pattern.test(line)),
        line,
      ).toBe(true);
    }
  });
});
