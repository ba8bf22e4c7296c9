import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { t3AmbientesTool } from "../../src/tools/t3_ambientes.js";
import { t3AtencaoTool } from "../../src/tools/t3_atencao.js";
import { t3BuscarThreadsTool } from "../../src/tools/t3_buscar_threads.js";
import { t3ControlPlaneTool } from "../../src/tools/t3_control_plane.js";
import { t3ProjetosTool } from "../../src/tools/t3_projetos.js";
import { t3ThreadsTool } from "../../src/tools/t3_threads.js";
import { ALPHA_ID, BETA_ID, invalidInput, startTwoEnvironments } from "./listing-support.js";

const TOOL = "t3_ambientes";
const LISTING_TOOLS = [
  t3AmbientesTool,
  t3ProjetosTool,
  t3ThreadsTool,
  t3BuscarThreadsTool,
  t3AtencaoTool,
  t3ControlPlaneTool,
];

describe("t3_ambientes", () => {
  let setup: SimReadSetup;
  beforeEach(async () => {
    setup = await startTwoEnvironments(LISTING_TOOLS, {
      allowedProjects: { alpha: ["only-one"] },
      // No test here waits for a deadline: none expires, however loaded the machine.
      deadlines: new ManualDeadlines(),
    });
  });
  afterEach(async () => {
    await setup.close();
  });

  it("lists the configured environments in config order and checks each by default", async () => {
    const result = await setup.call(TOOL, {});
    expect(result).toEqual({
      environments: [
        {
          alias: "alpha",
          environmentId: ALPHA_ID,
          transport: "url",
          allowedProjectCount: 1,
          available: true,
          name: "Alpha laptop",
          version: expect.any(String),
        },
        {
          alias: "beta",
          environmentId: BETA_ID,
          transport: "url",
          allowedProjectCount: 3,
          available: true,
          name: "Beta server",
          version: expect.any(String),
        },
      ],
    });
  });

  it("does not connect with check: false, even to an environment that would hang", async () => {
    setup.sim.environment("beta").faults.set({ hang: true });
    const result = await setup.call(TOOL, { check: false });
    expect(result).toEqual({
      environments: [
        { alias: "alpha", environmentId: ALPHA_ID, transport: "url", allowedProjectCount: 1 },
        { alias: "beta", environmentId: BETA_ID, transport: "url", allowedProjectCount: 3 },
      ],
    });
  });

  it("reports an unavailable environment with a sanitized code and reason, next to the available one", async () => {
    setup.sim.environment("alpha").faults.set({ wrongEnvironmentId: "env-impostor" });
    setup.sim.environment("beta").faults.set({ httpStatus: 500 });
    const { environments } = (await setup.call(TOOL, {})) as { environments: Array<Record<string, unknown>> };
    expect(environments[0]).toMatchObject({
      alias: "alpha",
      available: false,
      error: { code: "environment_mismatch", reason: expect.stringContaining("env-impostor") },
    });
    expect(environments[1]).toMatchObject({ alias: "beta", available: false, error: { code: "http_500" } });
    expect(environments[1]?.name).toBeUndefined();
    setup.sim.environment("beta").faults.clear();
    const again = (await setup.call(TOOL, {})) as { environments: Array<Record<string, unknown>> };
    expect(again.environments[1]).toMatchObject({ alias: "beta", available: true, name: "Beta server" });
  });

  it("refuses unknown and legacy keys as an invalid_input tool error (it takes no environment)", async () => {
    for (const args of [{ ambiente: "alpha" }, { environment: "alpha" }, { limite: 1 }, { check: "yes" }]) {
      expect((await invalidInput(setup, TOOL, args)).code).toBe("invalid_input");
    }
  });

  it("publishes the listing tools as read-only, with strict input schemas", async () => {
    const { tools } = await setup.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "t3_ambientes",
      "t3_atencao",
      "t3_buscar_threads",
      "t3_control_plane",
      "t3_projetos",
      "t3_threads",
    ]);
    for (const tool of tools) {
      expect(tool.annotations).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.outputSchema?.type).toBe("object");
    }
  });
});
