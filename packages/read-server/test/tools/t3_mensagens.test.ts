import type { SimReadSetup } from "@t3-connector/test-support/sim-context";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { t3MensagensTool } from "../../src/tools/t3_mensagens.js";
import { startByIdSetup } from "./by-id-fixture.js";

interface MessageOut {
  messageId: string;
  role: string;
  text: string;
  truncated: boolean;
  createdAt: string;
}

let setup: SimReadSetup;
beforeAll(async () => {
  setup = await startByIdSetup([t3MensagensTool]);
});
afterAll(async () => {
  await setup?.close();
});

describe("t3_mensagens", () => {
  it("returns the last messages oldest first, each cut from its start", async () => {
    const out = await setup.call("t3_mensagens", {
      environment: "alpha",
      threadId: "t-long",
      maxCharacters: 100,
    });
    expect(out.environment).toEqual({ alias: "alpha", environmentId: "env-alpha" });
    expect(out.threadId).toBe("t-long");
    expect(out.history).toEqual({ complete: true, payloadBudgetExceeded: false });
    const messages = out.messages as MessageOut[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    const reply = messages[1] as MessageOut;
    expect(reply.truncated).toBe(true);
    expect(reply.text.startsWith("The start of a long reply.")).toBe(true);
    expect(reply.text.endsWith("…")).toBe(true);
    expect(Array.from(reply.text)).toHaveLength(101);
    expect((messages[0] as MessageOut).truncated).toBe(false);
    expect(Date.parse(reply.createdAt)).toBeGreaterThanOrEqual(
      Date.parse((messages[0] as MessageOut).createdAt),
    );
  });

  it("keeps only the last `limit` messages", async () => {
    const out = await setup.call("t3_mensagens", { environment: "alpha", threadId: "t-long", limit: 1 });
    const messages = out.messages as MessageOut[];
    expect(messages).toHaveLength(1);
    expect(messages[0]?.role).toBe("assistant");
  });

  it("locates the thread without environment like t3_thread", async () => {
    const out = await setup.call("t3_mensagens", { threadId: "t-beta" });
    expect(out.environment).toEqual({ alias: "beta", environmentId: "env-beta" });
    expect(out.environmentDiscovery).toMatchObject({ complete: true });
    const ambiguous = await setup.callError("t3_mensagens", { threadId: "t-shared" });
    expect(ambiguous).toMatch(/^ambiguous_thread: /);
  });

  it("answers an unknown thread and a thread outside the ACL with the same refusal", async () => {
    const unknown = await setup.callError("t3_mensagens", { environment: "alpha", threadId: "t-nowhere" });
    const hidden = await setup.callError("t3_mensagens", { environment: "alpha", threadId: "t-hidden" });
    expect(unknown).toMatch(/^thread_not_found: /);
    expect(hidden.replace("t-hidden", "ID")).toBe(unknown.replace("t-nowhere", "ID"));
  });

  it("refuses legacy keys and out-of-range bounds as an invalid_input tool error", async () => {
    for (const args of [
      { threadId: "t-long", limite: 2 },
      { threadId: "t-long", ambiente: "alpha" },
      { threadId: "t-long", limit: 21 },
      { threadId: "t-long", maxCharacters: 99 },
    ]) {
      const error = await toolInputError(setup.client, "t3_mensagens", args);
      expect(error.code).toBe("invalid_input");
    }
  });
});
