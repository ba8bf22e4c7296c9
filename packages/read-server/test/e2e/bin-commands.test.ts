import { readFile, writeFile } from "node:fs/promises";
import { startSimulator } from "@t3-connector/t3-sim";
import { writeSimConfig } from "@t3-connector/test-support/sim-config";
import { callTool, runBin, serveUntilExit, spawnServe } from "@t3-connector/test-support/spawned-serve";
import { describe, expect, it } from "vitest";
import { useSimWithConfigs } from "./support/sim-with-configs.js";

// The real bin, spawned. A read server must never hold a token that can do more than read, so
// start-up stops on a mis-scoped token before it answers anything; an environment that is merely
// down does not stop it.
const world = useSimWithConfigs(["healthy", "scoped"]);
const { configWith } = world;

describe("t3-connector serve start-up", () => {
  it("refuses to start with a token that was issued with an extra scope", async () => {
    const scoped = world.sim.environment("scoped");
    const token = scoped.issueToken({ scopes: ["orchestration:read", "orchestration:operate"] });
    const { code, stdout, stderr } = await serveUntilExit(await configWith({ token: { scoped: token } }));
    expect(code).not.toBe(0);
    expect(stdout).toBe("");
    expect(stderr).toContain('refusing to start: scope_mismatch: the token of environment "scoped"');
    expect(stderr).not.toContain(token);
  });

  it("never answers a tool call with a mis-scoped token: the call gets the refusal or the session ends", async () => {
    const scoped = world.sim.environment("scoped");
    const token = scoped.issueToken({ scopes: ["orchestration:read", "orchestration:operate"] });
    const configPath = await configWith({ token: { scoped: token } });
    // initialize needs no environment, so it may answer before the check refuses; a tool call waits for it.
    const outcome = await spawnServe(configPath).then(
      async (serve) => {
        try {
          const result = await serve.client.callTool({ name: "t3_ambientes", arguments: {} });
          const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
          return result.isError ? text : `answered: ${text}`;
        } catch (error) {
          return `session ended: ${String(error)}`;
        } finally {
          await serve.close();
        }
      },
      (error: unknown) => `session ended: ${String(error)}`,
    );
    expect(outcome).toMatch(/^(scope_mismatch: |session ended: )/);
  });

  it("refuses to start when the server reports an extra scope for the token", async () => {
    const scoped = world.sim.environment("scoped");
    scoped.faults.set({ extraScopes: ["orchestration:operate"] });
    try {
      const { code, stderr } = await serveUntilExit(await configWith({}));
      expect(code).not.toBe(0);
      expect(stderr).toContain("scope_mismatch");
      expect(stderr).toContain("orchestration:operate");
    } finally {
      scoped.faults.clear();
    }
  });

  it("refuses to start when an environment answers as another environment", async () => {
    const { code, stderr } = await serveUntilExit(
      await configWith({ environmentId: { scoped: "expected-elsewhere" } }),
    );
    expect(code).not.toBe(0);
    expect(stderr).toContain("refusing to start: environment_mismatch");
  });

  it("starts with an environment that is down, warning on stderr and reporting it in every sweep", async () => {
    const down = await startSimulator({ environments: [{ alias: "gone", seed: "empty" }] });
    const config = await writeSimConfig(down);
    world.keep(config);
    // One config over both simulators: the healthy environment and one whose server is stopped.
    const healthy = await writeSimConfig(world.sim, { omit: ["scoped"] });
    world.keep(healthy);
    const merged = JSON.parse(await readFile(healthy.configPath, "utf8")) as {
      environments: Record<string, unknown>;
    };
    const gone = JSON.parse(await readFile(config.configPath, "utf8")) as {
      environments: Record<string, unknown>;
    };
    merged.environments.gone = gone.environments.gone;
    await writeFile(healthy.configPath, JSON.stringify(merged));
    await down.close();

    const serve = await spawnServe(healthy.configPath);
    try {
      await serve.stderrContains('warning: environment "gone" is not available now');
      const sweep = await callTool(serve.client, "t3_threads", {});
      expect(sweep.complete).toBe(false);
      expect(sweep.environmentFailures).toEqual([
        expect.objectContaining({ alias: "gone", code: "unavailable" }),
      ]);
      expect((sweep.queriedEnvironments as Array<{ alias: string }>).map((env) => env.alias)).toEqual([
        "healthy",
      ]);
    } finally {
      await serve.close();
    }
  });
});

describe("t3-connector pair and diagnose", () => {
  it("pairs from a pipe and diagnoses with the saved token", async () => {
    const healthy = world.sim.environment("healthy");
    const configPath = await configWith({ token: { healthy: "placeholder-before-pairing" } });
    const code = healthy.createPairingCode();
    const paired = await runBin(
      ["pair", "--environment", "healthy"],
      configPath,
      JSON.stringify({ credential: code }),
    );
    expect(paired.code, paired.stderr).toBe(0);
    expect(JSON.parse(paired.stdout)).toMatchObject({
      environment: "healthy",
      scopes: ["orchestration:read"],
    });
    expect(paired.stdout + paired.stderr).not.toContain(code);

    const diagnosed = await runBin(["diagnose", "--environment", "healthy"], configPath);
    expect(diagnosed.code, diagnosed.stderr).toBe(0);
    expect(JSON.parse(diagnosed.stdout)).toMatchObject({
      ok: true,
      environments: [{ alias: "healthy", scopes: ["orchestration:read"], missingAllowedProjects: [] }],
    });
  });
});
