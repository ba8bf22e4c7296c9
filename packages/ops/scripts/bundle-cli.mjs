// Bundles the compiled ops CLI (dist/cli.js and everything it imports: core, commander, zod, the
// read tools and the write path) into dist/t3-connector-ops.bundle.js, which the bin loads, as the
// read server's bin does (packages/read-server/scripts/bundle-cli.mjs). Node 20's ES module loader
// then resolves, compiles and links a few modules instead of about two hundred: that was most of
// `ops ls`'s time with nothing configured (docs/adr/0060, bench/ops-startup.mjs). The operations
// `Ops` loads with import() when they first run stay chunks of their own, so `ls` still loads
// neither the read tools nor the write path. Run it after `tsc -b` (it reads dist/, not src/); the
// root `pnpm build` does. The module API (`@t3-connector/ops`, dist/index.js) is not bundled.
//
// The bundle sits in dist/ itself: package-info.ts reads ../package.json from its own module.
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { installBundle } from "../../../scripts/install-bundle.mjs";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(pkg, "dist");
const name = "t3-connector-ops.bundle.js";
const chunkPrefix = "t3-connector-ops.chunk-";
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
  await installBundle({ staging, dist, name, chunkPrefix });
} finally {
  await rm(staging, { recursive: true, force: true });
}
