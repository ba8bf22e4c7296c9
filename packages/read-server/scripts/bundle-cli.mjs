// Bundles the compiled read-server CLI (dist/cli.js and everything it imports: core, the MCP SDK,
// zod) into one ES module, dist/t3-connector.bundle.js, which the bin loads. Node 20's ES module
// loader then resolves, compiles and links one module instead of several hundred, which is most
// of the time from spawn to the answer to `initialize` (see bench/read-startup.mjs). Run it after
// `tsc -b` (it reads dist/, not src/); the root `pnpm build` does.
//
// The bundle is written beside its final name and renamed into place, so a process starting the
// bin while a build runs (parallel test files do this) loads either the old or the new bundle,
// never a half-written one.
import { mkdtemp, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(pkg, "dist");
const name = "t3-connector.bundle.js";
// A sibling of dist/ at the same depth, so the source map's relative paths stay right after the move.
const staging = await mkdtemp(path.join(pkg, ".bundle-"));
try {
  await build({
    input: path.join(dist, "cli.js"),
    platform: "node",
    logLevel: "warn",
    // serve --http loads its modules with import(): kept in this one file, evaluated only when used.
    output: { file: path.join(staging, name), format: "esm", sourcemap: true, codeSplitting: false },
  });
  await rename(path.join(staging, `${name}.map`), path.join(dist, `${name}.map`));
  await rename(path.join(staging, name), path.join(dist, name));
} finally {
  await rm(staging, { recursive: true, force: true });
}
