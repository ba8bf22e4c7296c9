// Bundles the compiled read-server CLI (dist/cli.js and everything it imports: core, the MCP SDK,
// zod) into one ES module, dist/t3-connector.bundle.js, which the bin loads. Node 20's ES module
// loader then resolves, compiles and links one module instead of several hundred, which is most
// of the time from spawn to the answer to `initialize` (see bench/read-startup.mjs). Run it after
// `tsc -b` (it reads dist/, not src/); the root `pnpm build` does.
//
// `serve --http` loads its modules (Hono, the HTTP transport) with import(): they go to their own
// chunk beside the bundle, so the stdio server's start-up neither parses nor evaluates them.
//
// The files are written beside their final names and renamed into place, chunks first and the
// bundle last, so a process starting the bin while a build runs (parallel test files do this)
// loads either the old or the new bundle, never a half-written one, and every chunk the bundle it
// loads names is already there. Chunk names carry a content hash, so an older bundle still finds
// its own chunks; chunks no bundle names any more are removed.
import { mkdtemp, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(pkg, "dist");
const name = "t3-connector.bundle.js";
const chunkPrefix = "t3-connector.chunk-";
// A sibling of dist/ at the same depth, so the source map's relative paths stay right after the move.
const staging = await mkdtemp(path.join(pkg, ".bundle-"));
try {
  await build({
    input: path.join(dist, "cli.js"),
    platform: "node",
    logLevel: "warn",
    output: {
      dir: staging,
      entryFileNames: name,
      chunkFileNames: `${chunkPrefix}[name]-[hash].js`,
      format: "esm",
      sourcemap: true,
    },
  });
  const written = await readdir(staging);
  const chunks = written.filter((file) => file.startsWith(chunkPrefix));
  for (const file of chunks) await rename(path.join(staging, file), path.join(dist, file));
  await rename(path.join(staging, `${name}.map`), path.join(dist, `${name}.map`));
  await rename(path.join(staging, name), path.join(dist, name));
  for (const file of await readdir(dist)) {
    if (file.startsWith(chunkPrefix) && !chunks.includes(file))
      await rm(path.join(dist, file), { force: true });
  }
} finally {
  await rm(staging, { recursive: true, force: true });
}
