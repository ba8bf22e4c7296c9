// Bundles the compiled read-server CLI (dist/cli.js and everything it imports: core, the MCP SDK,
// zod) into one ES module, dist/t3-connector.bundle.js, which the bin loads. Node 20's ES module
// loader then resolves, compiles and links one module instead of several hundred, which is most
// of the time from spawn to the answer to `initialize` (see bench/read-startup.mjs). Run it after
// `tsc -b` (it reads dist/, not src/); the root `pnpm build` does.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
await build({
  input: path.join(pkg, "dist/cli.js"),
  platform: "node",
  logLevel: "warn",
  output: { file: path.join(pkg, "dist/t3-connector.bundle.js"), format: "esm", sourcemap: true },
});
