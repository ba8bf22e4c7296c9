import { readRealFixture } from "@t3-connector/test-support/real-fixtures";
import { describe, expect, it } from "vitest";
import { checkModelSelection, type ModelSelection, SAMPLE_INPUTS } from "../../src/actions/index.js";

// The real capture of server.getConfig (fixtures/t3-0.0.31).
const capture = readRealFixture<{
  response: { ws_frames_received: { frame: { exit: { value: unknown } } }[] };
}>("62-ws-server-getConfig.json");
const CONFIG = capture.response.ws_frames_received[0]?.frame.exit.value;

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
