import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { t3ProvidersTool } from "../../src/tools/t3_providers.js";
import { nextHeld, startByIdSetup } from "./by-id-fixture.js";

type Raw = Record<string, unknown>;

/** The fields the tool promises, copied from T3's provider when present (written independently). */
const KEPT = [
  "instanceId",
  "driver",
  "displayName",
  "enabled",
  "installed",
  "status",
  "availability",
  "unavailableReason",
  "message",
  "version",
  "checkedAt",
  "continuation",
  "supportedRuntimeModes",
  "requiresNewThreadForModelChange",
];

function expectedProvider(raw: Raw, environment: Raw, includeModels: boolean): Raw {
  const expected: Raw = {};
  for (const key of KEPT) if (raw[key] !== undefined) expected[key] = raw[key];
  const auth = raw.auth as { status: string } | undefined;
  if (auth) expected.auth = { status: auth.status };
  if (includeModels) expected.models = raw.models;
  expected.environment = environment;
  return expected;
}

function getConfigProviders(setup: SimReadSetup, alias: string): Raw[] {
  return setup.sim.environment(alias).model.serverConfig().providers as Raw[];
}

let setup: SimReadSetup;
beforeAll(async () => {
  setup = await startByIdSetup([t3ProvidersTool]);
});
afterAll(async () => {
  await setup?.close();
});

describe("t3_providers", () => {
  it("lists every environment's instances in T3 order, nothing filtered or added, without models by default", async () => {
    const out = await setup.call("t3_providers", {});
    const expected = ["alpha", "beta"].flatMap((alias) =>
      getConfigProviders(setup, alias).map((raw) =>
        expectedProvider(raw, { alias, environmentId: `env-${alias}`, name: alias }, false),
      ),
    );
    expect(out.source).toBe("server.getConfig");
    expect(out.complete).toBe(true);
    expect(out.environmentFailures).toEqual([]);
    expect(out.providers).toEqual(expected);
    expect(out.total).toBe(expected.length);
    // Disabled and not-installed instances are there too.
    const statuses = (out.providers as Raw[]).map((provider) => provider.status);
    expect(statuses).toEqual(expect.arrayContaining(["ready", "disabled", "error"]));
    expect(out.queriedEnvironments).toEqual([
      { alias: "alpha", environmentId: "env-alpha", name: "alpha", found: expected.length / 2 },
      { alias: "beta", environmentId: "env-beta", name: "beta", found: expected.length / 2 },
    ]);
    expect(out.environment).toBeUndefined();
  });

  it("adds each instance's models unchanged with includeModels", async () => {
    const out = await setup.call("t3_providers", { environment: "beta", includeModels: true });
    const environment = { alias: "beta", environmentId: "env-beta", name: "beta" };
    expect(out.environment).toEqual({ alias: "beta", environmentId: "env-beta" });
    expect(out.providers).toEqual(
      getConfigProviders(setup, "beta").map((raw) => expectedProvider(raw, environment, true)),
    );
  });

  it("leaves out account, paths, slash commands and update details", async () => {
    const out = await setup.call("t3_providers", { environment: "alpha" });
    for (const provider of out.providers as Raw[]) {
      for (const key of [
        "slashCommands",
        "skills",
        "versionAdvisory",
        "showInteractionModeToggle",
        "models",
      ]) {
        expect(provider).not.toHaveProperty(key);
      }
      expect(Object.keys(provider.auth as Raw)).toEqual(["status"]);
    }
  });

  it("answers a newer server's extra fields at every level without passing them on", async () => {
    const model = setup.sim.environment("alpha").model;
    const original = model.serverConfig.bind(model);
    model.serverConfig = () => {
      const config = original();
      const providers = config.providers as Raw[];
      const first = providers[0] as Raw;
      first.accountEmail = "someone@example.com";
      const firstModel = (first.models as Raw[])[0] as Raw;
      firstModel.pricing = { input: 1 };
      const capabilities = firstModel.capabilities as { optionDescriptors: Raw[] } & Raw;
      capabilities.experimental = true;
      const descriptor = capabilities.optionDescriptors[0] as Raw;
      descriptor.hint = "new";
      ((descriptor.options as Raw[])[0] as Raw).icon = "bolt";
      return config;
    };
    try {
      const out = await setup.call("t3_providers", { environment: "alpha", includeModels: true });
      const text = JSON.stringify(out);
      for (const extra of ["accountEmail", "pricing", "experimental", '"hint"', '"icon"']) {
        expect(text).not.toContain(extra);
      }
      const first = (out.providers as Raw[])[0] as Raw;
      expect((first.models as Raw[]).length).toBeGreaterThan(0);
    } finally {
      model.serverConfig = original;
    }
  });

  it("filters instanceId literally", async () => {
    const exact = await setup.call("t3_providers", { instanceId: "codex", includeModels: true });
    expect(
      (exact.providers as Raw[]).map((provider) => [
        provider.instanceId,
        (provider.environment as Raw).alias,
      ]),
    ).toEqual([
      ["codex", "alpha"],
      ["codex", "beta"],
    ]);
    const otherCase = await setup.call("t3_providers", { instanceId: "Codex" });
    expect(otherCase.providers).toEqual([]);
    expect(otherCase.total).toBe(0);
  });

  it("refuses legacy and unknown keys as an invalid_input tool error", async () => {
    for (const args of [{ ambiente: "alpha" }, { includeModels: "yes" }, { models: true }]) {
      const error = await toolInputError(setup.client, "t3_providers", args);
      expect(error.code).toBe("invalid_input");
    }
  });
});

describe("t3_providers with an environment that does not answer", () => {
  let hanging: SimReadSetup;
  // beta's deadline expires once beta holds the request; alpha's never fires, however loaded the machine.
  const deadlines = new ManualDeadlines();
  beforeAll(async () => {
    hanging = await startByIdSetup([t3ProvidersTool], { deadlines });
    hanging.sim.environment("beta").faults.set({ hang: true });
  });
  afterAll(async () => {
    await hanging?.close();
  });

  it("flags the sweep as partial and keeps the answering environment's instances", async () => {
    const out = await deadlines.timingOut(
      "beta",
      () => hanging.call("t3_providers", {}),
      nextHeld(hanging, "beta"),
    );
    expect(out.complete).toBe(false);
    expect(out.environmentFailures).toEqual([
      expect.objectContaining({ alias: "beta", environmentId: "env-beta", code: "timeout" }),
    ]);
    const aliases = new Set((out.providers as Raw[]).map((provider) => (provider.environment as Raw).alias));
    expect([...aliases]).toEqual(["alpha"]);
  });

  it("fails the call when the named environment does not answer", async () => {
    const text = await deadlines.timingOut("beta", () =>
      hanging.callError("t3_providers", { environment: "beta" }),
    );
    expect(text).toMatch(/^timeout: /);
  });
});

describe("t3_providers against a server that answers as another environment", () => {
  let mismatched: SimReadSetup;
  beforeAll(async () => {
    mismatched = await startByIdSetup([t3ProvidersTool]);
    // Verify the connection first, so only server.getConfig sees the other id.
    await mismatched.context.registry.resolve("alpha").connect();
    mismatched.sim.environment("alpha").faults.set({ wrongEnvironmentId: "env-impostor" });
  });
  afterAll(async () => {
    await mismatched?.close();
  });

  it("refuses its providers", async () => {
    const text = await mismatched.callError("t3_providers", { environment: "alpha" });
    expect(text).toMatch(/^environment_mismatch: /);
  });
});
