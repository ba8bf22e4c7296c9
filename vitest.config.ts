import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

// Tests import workspace packages from their sources, so a test run never depends on a stale build.
// End-to-end tests that spawn a CLI use the built `dist/`: their tiers' global setup builds it once.
const UNIT_INCLUDE = ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"];
/** Tests that spawn the built CLIs or launchers: named `*.e2e.test.ts`, or under a `test/e2e/` folder. */
const E2E = ["**/*.e2e.test.ts", "packages/*/test/e2e/**/*.test.ts"];
/** Pages in real headless Chromium (the approval page, OAuth sign-in): under `test/browser/` or `*.browser.test.ts`. */
const BROWSER = ["packages/*/test/browser/**/*.test.ts", "**/*.browser.test.ts"];
/** Every package packed into a tarball and installed with npm, as a user would. */
const PACK = ["test/pack/**/*.test.ts"];
/** Against a real T3 server, by hand only (`pnpm test:real`; docs/testing.md): not in `pnpm test`. */
const REAL = ["packages/*/test/real-t3/**/*.test.ts"];
const BUILD_ONCE = "test/support/build-once.ts";

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
      {
        find: /^@t3-connector\/mcp-tools\/read-contracts$/,
        replacement: fileURLToPath(
          new URL("./packages/mcp-tools/src/read-contracts/index.ts", import.meta.url),
        ),
      },
      { find: /^@t3-connector\/t3-sim$/, replacement: src("t3-sim") },
      { find: /^@t3-connector\/read-server$/, replacement: src("read-server") },
      {
        find: /^@t3-connector\/read-server\/tools$/,
        replacement: fileURLToPath(new URL("./packages/read-server/src/tools/index.ts", import.meta.url)),
      },
      { find: /^@t3-connector\/write-gate$/, replacement: src("write-gate") },
      { find: /^@t3-connector\/ops$/, replacement: src("ops") },
      { find: /^@t3-connector\/write-bridge$/, replacement: src("write-bridge") },
      {
        find: /^@t3-connector\/write-bridge\/tool-table$/,
        replacement: fileURLToPath(
          new URL("./packages/write-bridge/src/tools/write-tool-table.ts", import.meta.url),
        ),
      },
      { find: /^@t3-connector\/events$/, replacement: src("events") },
      { find: /^@t3-connector\/oauth$/, replacement: src("oauth") },
      // Test support lives in one place, test/support, and every test imports it by this name.
      {
        find: /^@t3-connector\/test-support\/([a-z0-9-]+)$/,
        replacement: fileURLToPath(new URL("./test/support/$1.ts", import.meta.url)),
      },
    ],
  },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Four tiers, each runnable alone (`pnpm test:unit`, `test:e2e`, `test:browser`, `test:pack`);
    // `pnpm test` runs them all. Only the tiers that run the built code build it first
    // (test/support/build-once.ts); the unit tier runs from the sources and refuses a built bin
    // (test/support/built-bins.ts), so it never needs a build and never runs a stale one.
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT_INCLUDE,
          exclude: [...E2E, ...BROWSER, ...PACK, ...REAL, "**/node_modules/**"],
          env: { T3C_TEST_TIER: "unit" },
          // One process: starting a child throws here (test/support/no-processes-in-unit.ts).
          setupFiles: ["test/support/no-processes-in-unit.ts"],
          // One module graph per worker thread instead of one per file: loading the SDK, zod and
          // hono again for each of ~170 files cost more than the tests. These tests keep no state
          // between files (the simulator hands out copies; nothing mocks modules or stubs globals).
          pool: "threads",
          isolate: false,
          // Vitest's default (cores − 1) is one worker on a 2-core machine: the tier then runs its
          // files one after another while most of them wait on sockets, the simulator and
          // deadlines. Two workers overlap those waits; bigger machines keep cores − 1.
          maxWorkers: Math.max(2, availableParallelism() - 1),
        },
      },
      { extends: true, test: { name: "e2e", include: E2E, globalSetup: [BUILD_ONCE] } },
      { extends: true, test: { name: "browser", include: BROWSER, globalSetup: [BUILD_ONCE] } },
      { extends: true, test: { name: "pack", include: PACK, globalSetup: [BUILD_ONCE] } },
      {
        extends: true,
        test: { name: "real", include: REAL, globalSetup: [BUILD_ONCE], testTimeout: 120_000 },
      },
    ],
  },
});
