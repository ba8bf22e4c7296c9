import { readRealFixture } from "@t3-connector/test-support/real-fixtures";
import { describe, expect, it } from "vitest";
import { checkModelSelection, type ModelSelection, SAMPLE_INPUTS } from "../../src/actions/index.js";

// The real capture of server.getConfig (fixtures/t3-0.0.31).
const capture = readRealFixture<{
  response: { ws_frames_received: { frame: { exit: { value: unknown } } }[] };
}>("62-ws-server-getConfig.json");
const CAPTURED = capture.response.ws_frames_received[0]?.frame.exit.value as {
  providers: Record<string, unknown>[];
};
// The capture's host had no provider CLI, so T3 reported every provider not ready; the model and
// option checks below read its lists as a host where the CLIs are installed and ready would.
const CONFIG = {
  ...CAPTURED,
  providers: CAPTURED.providers.map((row) => ({ ...row, installed: true, status: "ready" })),
};

function reason(selection: ModelSelection, config: unknown = CONFIG): unknown {
  return checkModelSelection(selection, config)?.details?.reason ?? null;
}

describe("model selection against a fresh server.getConfig", () => {
  it("accepts an offered instance, model and options, as the sample sends them", () => {
    const sample = SAMPLE_INPUTS["thread.model-selection.set"].modelSelection as ModelSelection;
    expect(checkModelSelection(sample, CONFIG)).toBeNull();
    expect(reason({ instanceId: "grok", model: "grok-build" })).toBeNull();
  });

  it("refuses with the first failing check, in the contract's order", () => {
    const opus5 = { instanceId: "claudeAgent", model: "claude-opus-5" };
    expect(checkModelSelection(opus5, undefined)?.details?.reason).toBe("model_capabilities_unavailable");
    expect(reason(opus5, { environment: {} })).toBe("model_capabilities_unavailable");
    expect(reason({ instanceId: "nobody", model: "x" })).toBe("provider_instance_unavailable");
    expect(reason({ instanceId: "claudeAgent", model: "claude-nope" })).toBe("provider_model_unavailable");
    const opus = { instanceId: "claudeAgent", model: "claude-opus-5" };
    expect(reason({ ...opus, options: [{ id: "turbo", value: true }] })).toBe("model_option_unsupported");
    expect(
      reason({
        ...opus,
        options: [
          { id: "fastMode", value: true },
          { id: "fastMode", value: false },
        ],
      }),
    ).toBe("model_option_unsupported");
    expect(reason({ ...opus, options: [{ id: "effort", value: "hyper" }] })).toBe(
      "model_option_value_unsupported",
    );
    expect(reason({ ...opus, options: [{ id: "effort", value: true }] })).toBe(
      "model_option_value_unsupported",
    );
    expect(reason({ ...opus, options: [{ id: "fastMode", value: "yes" }] })).toBe(
      "model_option_value_unsupported",
    );
  });

  it("refuses a provider T3 reports as not ready, as the capture's host reported each of them", () => {
    for (const row of CAPTURED.providers) {
      const refusal = checkModelSelection({ instanceId: String(row.instanceId), model: "any" }, CAPTURED);
      expect(refusal?.code).toBe("guard_refused");
      expect(refusal?.details).toMatchObject({ reason: "provider_not_ready", instanceId: row.instanceId });
    }
    const codex = CAPTURED.providers.find((row) => row.instanceId === "codex");
    expect(checkModelSelection({ instanceId: "codex", model: "gpt-5.5" }, CAPTURED)?.message).toContain(
      String(codex?.message),
    );
    const warning = { providers: [{ ...codex, installed: true, status: "warning" }] };
    expect(reason({ instanceId: "codex", model: "gpt-5.5" }, warning)).toBe("provider_not_ready");
    const unavailable = {
      providers: [{ ...codex, installed: true, status: "ready", availability: "unavailable" }],
    };
    expect(reason({ instanceId: "codex", model: "gpt-5.5" }, unavailable)).toBe("provider_not_ready");
  });

  it("names the offered values in the refusal", () => {
    const refusal = checkModelSelection({ instanceId: "claudeAgent", model: "claude-nope" }, CONFIG);
    expect(refusal?.code).toBe("guard_refused");
    expect(refusal?.message).toContain("claude-opus-5");
    expect(refusal?.details?.offered).toContain("claude-sonnet-5");
  });

  it("refuses options it cannot check rather than passing them", () => {
    const config = {
      providers: [
        {
          instanceId: "codex",
          status: "ready",
          models: [
            { slug: "m1", capabilities: null },
            {
              slug: "m2",
              capabilities: { optionDescriptors: [{ id: "dial", label: "Dial", type: "range" }] },
            },
          ],
        },
      ],
    };
    expect(reason({ instanceId: "codex", model: "m1" }, config)).toBeNull();
    expect(reason({ instanceId: "codex", model: "m1", options: [{ id: "x", value: true }] }, config)).toBe(
      "model_capabilities_unknown",
    );
    expect(reason({ instanceId: "codex", model: "m2", options: [{ id: "dial", value: "3" }] }, config)).toBe(
      "model_capabilities_unknown",
    );
  });
});
