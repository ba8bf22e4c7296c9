import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

// Tests import workspace packages from their sources, so a test run never depends on a stale build.
// End-to-end tests that spawn a CLI use the built `dist/`: the global setup builds it once per run.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@t3-connector\/core$/, replacement: src("core") },
      {
        find: /^@t3-connector\/core\/([a-z0-9-]+)$/,
        replacement: fileURLToPath(new URL("./packages/core/src/$1/index.ts", import.meta.url)),
      },
      {
        find: /^@t3-connector\/write-engine\/([a-z0-9-]+)$/,
        replacement: fileURLToPath(new URL("./packages/write-engine/src/$1/index.ts", import.meta.url)),
      },
      { find: /^@t3-connector\/mcp-tools$/, replacement: src("mcp-tools") },
      { find: /^@t3-connector\/t3-sim$/, replacement: src("t3-sim") },
      { find: /^@t3-connector\/read-server$/, replacement: src("read-server") },
      { find: /^@t3-connector\/write-gate$/, replacement: src("write-gate") },
      { find: /^@t3-connector\/write-bridge$/, replacement: src("write-bridge") },
      { find: /^@t3-connector\/events$/, replacement: src("events") },
      { find: /^@t3-connector\/oauth$/, replacement: src("oauth") },
    ],
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/support/build-once.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
  },
});
