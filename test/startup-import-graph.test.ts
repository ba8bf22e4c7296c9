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
// read tools with their JSON Schemas converted ahead of time (src/cli.ts, runCommand and runServe).
const STDIO_SERVE = [
  "packages/read-server/src/cli.ts",
  "packages/read-server/src/cli/serve.ts",
  "packages/read-server/src/read-tool-json-schemas.ts",
];

// What `ops ls` loads: the CLI, then with import() the operations and the config (cli/session.ts
// openOps) and, with nothing configured, core's config for the hint.
const OPS_LS = [
  "packages/ops/src/cli.ts",
  "packages/ops/src/ops.ts",
  "packages/ops/src/config.ts",
  "packages/core/src/config/index.ts",
];

describe("start-up import graphs", () => {
  it("stdio serve loads the MCP server and the read tools, none of the HTTP edge, OAuth, writes or webhooks", () => {
    const graph = staticImportGraph(STDIO_SERVE);
    // The walk reaches what serve needs (so an empty graph cannot pass).
    expect(graph.packages.has("@modelcontextprotocol/server")).toBe(true);
    expect(graph.files.has("packages/read-server/src/server.ts")).toBe(true);
    expect(graph.files.has("packages/core/src/config/read-config.ts")).toBe(true);
    const found = violations(STDIO_SERVE, NOT_FOR_STDIO);
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
  });
});
