import { chmod } from "node:fs/promises";
import { writeSimConfig } from "@t3-connector/test-support/sim-config";
import { callTool, serveUntilExit, spawnServe } from "@t3-connector/test-support/spawned-serve";
import { afterEach, describe, expect, it } from "vitest";
import { useSimWithConfigs } from "./support/sim-with-configs.js";

// The real bin, spawned. `serve` verifies the environments in the background: a hung environment
// must not hold back `initialize`, and a mis-scoped token must still stop the process, at once.
const world = useSimWithConfigs(["alpha", "beta"]);
const { configWith } = world;

afterEach(() => {
  for (const env of world.sim.environments) env.faults.clear();
});

describe("t3-connector serve with verification in the background", () => {
  it("answers initialize and tools/list while an environment hangs, and ends at once when stdin closes", async () => {
    world.sim.environment("alpha").faults.set({ hang: true });
    const served = await spawnServe(await configWith({}));
    try {
      const { tools } = await served.client.listTools();
      expect(tools).toHaveLength(15);
      await served.stderrContains("read-only MCP server on stdio");
      // alpha's verification is given up only after 5 s; the session did not wait for it.
      expect(served.stderr()).not.toContain('environment "alpha"');
    } finally {
      await served.close();
    }
  });

  it("exits 1 on a mis-scoped token without waiting for an environment that hangs", async () => {
    world.sim.environment("alpha").faults.set({ hang: true });
    const beta = world.sim.environment("beta");
    const { code, stdout, stderr } = await serveUntilExit(
      await configWith({ token: { beta: beta.operateToken } }),
    );
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain('refusing to start: scope_mismatch: the token of environment "beta"');
    // Waiting for alpha would have printed its "did not verify within 5000 ms" warning first.
    expect(stderr).not.toContain('environment "alpha"');
    expect(stderr).not.toContain(beta.operateToken);
  });

  it("serves the other environments when one token file is unsafe, reporting it unavailable with the reason", async () => {
    const config = await writeSimConfig(world.sim, {});
    world.keep(config);
    await chmod(config.tokenFile("beta"), 0o644);
    const served = await spawnServe(config.configPath);
    try {
      const listing = await callTool(served.client, "t3_threads", {});
      expect(listing.complete).toBe(false);
      expect(listing.environmentFailures).toEqual([
        expect.objectContaining({
          alias: "beta",
          code: "connection_refused",
          reason: expect.stringContaining("token file"),
        }),
      ]);
      expect((listing.threads as unknown[]).length).toBeGreaterThan(0);
      // The operator's terminal names the file and the fix.
      await served.stderrContains(`token file ${config.tokenFile("beta")} must have mode 600`);
    } finally {
      await served.close();
    }
  });
});
