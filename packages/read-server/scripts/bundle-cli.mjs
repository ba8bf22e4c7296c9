// Bundles the compiled read-server CLI (dist/cli.js and everything it imports: core, the MCP SDK,
// zod) into one ES module, dist/t3-connector.bundle.js, which the bin loads. Node 20's ES module
// loader then resolves, compiles and links one module instead of several hundred, which is most
// of the time from spawn to the answer to `initialize` (see bench/read-startup.mjs). Run it after
// `tsc -b` (it reads dist/, not src/); the root `pnpm build` does.
//
// Every command is loaded with import() when it runs (src/cli.ts), so `--version`, `--help` and a
// typo load only the bundle and the few small chunks of the command-line parser. Left to itself the
// bundler would then split `serve` (stdio) into a dozen chunks shared with other commands, and the
// MCP start-up would pay for loading each: so a first pass finds the modules the stdio server
// needs beyond what the bundle already loaded, and the real pass puts them in one chunk
// (`serve`). `serve --http` (Hono, the HTTP transport) and `events` keep their own chunks, so the
// stdio server's start-up neither parses nor evaluates them.
//
// The files are written beside their final names and renamed into place (scripts/install-bundle.mjs:
// a process starting the bin while a build runs loads either the old or the new bundle).
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { installBundle } from "../../../scripts/install-bundle.mjs";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(pkg, "dist");
const name = "t3-connector.bundle.js";
const chunkPrefix = "t3-connector.chunk-";
// A sibling of dist/ at the same depth, so the source map's relative paths stay right after the move.
const staging = await mkdtemp(path.join(pkg, ".bundle-"));
// The modules that start the stdio server: the command and the catalog of the read tools it serves
// by default (listed from tables written ahead of time; each tool's module is a chunk of its own,
// loaded at the tool's first call).
const SERVE_ENTRIES = [path.join(dist, "cli", "serve.js"), path.join(dist, "read-tool-catalog.js")];

const COMMAND_LINE = [
  "/node_modules/commander/",
  "/core/dist/cli-support/command-line.js",
  "/core/dist/cli-support/environments-command-line.js",
  "/read-server/dist/cli/args.js",
  "/read-server/dist/cli/events-args.js",
  "/read-server/dist/http/http-args.js",
].map((part) => part.replaceAll("/", path.sep));

const options = (extra) => ({
  input: path.join(dist, "cli.js"),
  platform: "node",
  logLevel: "warn",
  // The serve chunk may import what the bundle already holds from the bundle itself (which then
  // exports a little more than runCli); rolldown requires saying so for the grouping below.
  preserveEntrySignatures: "allow-extension",
  // The parser's modules only declare (commander's CommonJS wrapper runs when first required):
  // said so, a barrel that re-exports them no longer loads them just to keep its order.
  // Every other module keeps the bundler's own reading (a package's "sideEffects" included).
  treeshake: {
    moduleSideEffects: (id) => (COMMAND_LINE.some((part) => id.includes(part)) ? false : undefined),
  },
  output: {
    dir: staging,
    entryFileNames: name,
    chunkFileNames: `${chunkPrefix}[name]-[hash].js`,
    format: "esm",
    sourcemap: true,
    ...extra,
  },
});

/** The modules `serve` loads after the bundle's own static imports: one chunk for them. */
async function serveModules() {
  const { output } = await build({ ...options(), write: false });
  const chunks = new Map(
    output.filter((item) => item.type === "chunk").map((chunk) => [chunk.fileName, chunk]),
  );
  const reached = (starts) => {
    const seen = new Set();
    const stack = [...starts];
    while (stack.length > 0) {
      const file = stack.pop();
      if (seen.has(file)) continue;
      seen.add(file);
      // Only our own chunks: `imports` also names node: built-ins.
      stack.push(...chunks.get(file).imports.filter((imported) => chunks.has(imported)));
    }
    return new Set([...seen].flatMap((file) => chunks.get(file).moduleIds));
  };
  const loadedFirst = reached([name]);
  const serveChunks = [...chunks.values()].filter((chunk) =>
    SERVE_ENTRIES.some((entry) => chunk.moduleIds.includes(entry)),
  );
  const placed = SERVE_ENTRIES.filter((entry) =>
    serveChunks.some((chunk) => chunk.moduleIds.includes(entry)),
  );
  if (placed.length !== SERVE_ENTRIES.length) throw new Error("bundle-cli: the serve entries moved");
  return new Set(
    [...reached(serveChunks.map((chunk) => chunk.fileName))].filter((id) => !loadedFirst.has(id)),
  );
}

try {
  const serve = await serveModules();
  await build(
    options({
      codeSplitting: {
        // Only the modules named: their dependencies the bundle already loaded stay where they are.
        includeDependenciesRecursively: false,
        groups: [
          { name: "serve", test: (id) => serve.has(id) },
          // The command-line parser, which a bare `serve` does without (src/cli/bare-serve.ts):
          // commander and the modules that declare the commands with it, in a chunk of their own.
          { name: "command-line", test: (id) => COMMAND_LINE.some((part) => id.includes(part)) },
        ],
      },
    }),
  );
  await installBundle({ staging, dist, name, chunkPrefix });
} finally {
  await rm(staging, { recursive: true, force: true });
}
