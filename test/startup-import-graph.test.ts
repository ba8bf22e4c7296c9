import { staticImportGraph } from "@t3-connector/test-support/static-import-graph";
import { describe, expect, it } from "vitest";

// What two start-ups load before their first answer, held to what that answer needs (ADR 0060,
// bench/read-startup.mjs, bench/ops-startup.mjs). The graphs are read from the sources through
// static imports: `import()` is where a command chooses to load later. The bundles the bins load
// are built from the same graph (scripts/bundle-cli.mjs), so what is not reached here is not
// parsed at start-up there either.

/** Workspace folders and outside packages a start-up must not load, and the files of those folders it may. */
interface Forbidden {
  readonly folders: readonly string[];
  readonly packages: readonly string[];
  readonly allowed?: readonly string[];
}

function violations(entries: readonly string[], forbidden: Forbidden): string[] {
  const graph = staticImportGraph(entries);
  return [
    ...[...graph.files]
      .filter((file) => forbidden.folders.some((folder) => file.startsWith(folder)))
      .filter((file) => !(forbidden.allowed ?? []).includes(file))
      .map((file) => `loads ${file}`),
    ...[...graph.packages]
      .filter(([name]) => forbidden.packages.includes(name))
      .map(([name, importer]) => `loads ${name} (imported by ${importer})`),
  ];
}

// Everything of the HTTP transport and the writes: Hono, OAuth and its passkeys, the write
// bridge and engine, the webhook service. ws is loaded when a tool first opens a T3 socket.
// Allowed: the parsing of `serve --http`'s flags, which every command line's parse includes (none
// of them imports Hono: the package list holds that), and `events`' one entry, which the
// `events` command's flags take the event type names from (the bundler keeps only those names:
// about 1 kB of t3-connector.bundle.js); the package list holds that it brings nothing outside.
const NOT_FOR_STDIO: Forbidden = {
  folders: [
    "packages/read-server/src/http/",
    "packages/read-server/src/events/",
    "packages/oauth/",
    "packages/write-bridge/",
    "packages/write-engine/",
    "packages/write-gate/",
  ],
  packages: ["hono", "@hono/node-server", "@simplewebauthn/server", "jose", "ws"],
  allowed: [
    "packages/read-server/src/http/http-args.ts",
    "packages/read-server/src/http/http-options.ts",
    "packages/read-server/src/http/http-client-config.ts",
    "packages/read-server/src/http/host-origin-guard.ts",
    "packages/read-server/src/http/loopback.ts",
  ],
};

// What `runCli` loads for `serve` over stdio: the CLI, then with import() the command and the
// catalog of the read tools, listed from tables written ahead of time (src/cli.ts, runServe).
const STDIO_SERVE = [
  "packages/read-server/src/cli.ts",
  "packages/read-server/src/cli/serve.ts",
  "packages/read-server/src/read-tool-catalog.ts",
];

// What the read tools' calls need and their listing does not: each tool's module (its zod schemas
// and answer), the answers' modules (listing, paging, thread reads, waits, diffs, the change feed)
// and the contracts and answers shared with the bridge. Stdio `serve` lists its tools from the
// catalog's tables and loads a tool's module at its first call (tools/loaders.ts), so a tool or a
// module of one reached from start-up fails here: the way to a tool is its loader's import().
const TOOLS_NOT_AT_START: Forbidden = {
  folders: [
    "packages/read-server/src/tools/",
    "packages/read-server/src/by-id/",
    "packages/read-server/src/diffs/",
    "packages/read-server/src/listing/",
    "packages/read-server/src/scope/",
    "packages/read-server/src/since/",
    "packages/read-server/src/wait/",
    "packages/read-server/src/served-read-tool.ts",
    "packages/read-server/src/context-read-source.ts",
    "packages/mcp-tools/src/read-answers/",
    "packages/mcp-tools/src/read-contracts/",
    "packages/core/src/diff/",
  ],
  packages: [],
  allowed: ["packages/read-server/src/tools/loaders.ts"],
};

// What `ops ls` loads: the CLI, then with import() the operations and the config (cli/session.ts
// openOps) and, with nothing configured, core's config for the hint.
const OPS_LS = [
  "packages/ops/src/cli.ts",
  "packages/ops/src/ops.ts",
  "packages/ops/src/config.ts",
  "packages/core/src/config/index.ts",
];

describe("start-up import graphs", () => {
  it("stdio serve loads the MCP server and the read tools' catalog, none of the HTTP edge, OAuth, writes or webhooks", () => {
    const graph = staticImportGraph(STDIO_SERVE);
    // The walk reaches what serve needs (so an empty graph cannot pass).
    expect(graph.packages.has("@modelcontextprotocol/server")).toBe(true);
    expect(graph.files.has("packages/read-server/src/server.ts")).toBe(true);
    expect(graph.files.has("packages/core/src/config/read-config.ts")).toBe(true);
    const found = violations(STDIO_SERVE, NOT_FOR_STDIO);
    expect(found, found.join("\n")).toEqual([]);
  });

  it("stdio serve loads no read tool's module, schemas or answer before a call needs it", () => {
    const graph = staticImportGraph(STDIO_SERVE);
    // The catalog and its loaders are reached (so the walk cannot pass by missing them).
    expect(graph.files.has("packages/read-server/src/tools/loaders.ts")).toBe(true);
    expect(graph.files.has("packages/read-server/src/read-tool-cards.generated.ts")).toBe(true);
    const found = violations(STDIO_SERVE, TOOLS_NOT_AT_START);
    expect(found, found.join("\n")).toEqual([]);
  });

  it("ops ls loads its listing and config, not the read server, the writes, the MCP SDK or ws", () => {
    const graph = staticImportGraph(OPS_LS);
    expect(graph.files.has("packages/ops/src/listing.ts")).toBe(true);
    expect(graph.packages.has("commander")).toBe(true);
    const found = violations(OPS_LS, {
      folders: [
        "packages/read-server/",
        "packages/mcp-tools/",
        "packages/oauth/",
        "packages/events/",
        "packages/write-bridge/",
        "packages/write-engine/",
        "packages/write-gate/",
      ],
      packages: ["@modelcontextprotocol/server", "hono", "@hono/node-server", "ws"],
    });
    expect(found, found.join("\n")).toEqual([]);
  });

  it("finds a forbidden module when one is reached (the check can fail)", () => {
    const found = violations(["packages/read-server/src/http/serve-http.ts"], NOT_FOR_STDIO);
    expect(found.some((line) => line.includes("hono"))).toBe(true);
    // The eager list of every tool, as `serve --http` loads it, is what stdio must not reach.
    const eager = violations(["packages/read-server/src/read-tool-json-schemas.ts"], TOOLS_NOT_AT_START);
    expect(eager).toContain("loads packages/read-server/src/tools/t3_diff.ts");
    expect(eager).toContain("loads packages/mcp-tools/src/read-contracts/index.ts");
  });
});
