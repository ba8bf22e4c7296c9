import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { builtBin } from "@t3-connector/test-support/built-bins";
import {
  type AuthenticatorPage,
  launchChromium,
  openWithAuthenticator,
} from "@t3-connector/test-support/chromium";
import { pageOrigin, type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { IDLE_THREAD, RUNNING_THREAD } from "@t3-connector/test-support/sim-world";
import { toolInputError } from "@t3-connector/test-support/tool-input-error";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = builtBin("t3-connector-write");

let browser: Browser | undefined;
let real: RealGate | undefined;
let tab: AuthenticatorPage | undefined;
let client: Client | undefined;

beforeAll(async () => {
  browser = await launchChromium();
  real = await startRealGate();
  tab = await openWithAuthenticator(browser);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "bridge"],
    env: { ...(process.env as Record<string, string>), T3_CONNECTOR_WRITE_CONFIG: real.config.path },
    stderr: "pipe",
  });
  client = new Client({ name: "bridge-passkey-e2e", version: "0.0.0" });
  await client.connect(transport);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await tab?.context.close();
  await browser?.close();
  await real?.close();
});

type Body = Record<string, unknown>;
type ToolAnswer = { isError?: boolean; structuredContent?: unknown; content?: unknown };

async function call(name: string, args: Body): Promise<ToolAnswer> {
  if (client === undefined) throw new Error("the bridge client did not connect");
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}
const structured = (answer: ToolAnswer) => answer.structuredContent as Body;
const textOf = (answer: ToolAnswer) =>
  (answer.content as Array<{ type: string; text?: string }> | undefined)?.[0]?.text ?? "";

function waitForMessage(page: Page, text: string): Promise<void> {
  return page.locator("[data-testid=message]").filter({ hasText: text }).waitFor();
}

describe("the stdio bridge writes under a lease approved with a passkey in a real browser", () => {
  it("gets the approval link through the bridge, writes once after the passkey approval, replays, conflicts and refuses a legacy key", async () => {
    if (real === undefined || tab === undefined) throw new Error("setup did not finish");
    const page = tab.page;
    const alpha = real.world.env("alpha");
    // The bridge reads the port from the same write.json the gate was started with.
    expect(real.gate.port).toBe(real.config.port);

    // No lease yet: the bridge relays the approval request and hands back the page's link.
    const asked = await call("t3_pedir_aprovacao", {});
    expect(asked.isError, textOf(asked)).toBeFalsy();
    const link = structured(asked);
    expect(link).toMatchObject({ authorized: false });
    expect(link.approvalUrl).toBe(`${pageOrigin(real.gate)}/?request=${link.requestId}`);

    // Enrollment with the code the gate printed on its terminal.
    await page.goto(`${pageOrigin(real.gate)}/`);
    await page.waitForSelector("body[data-ready=true]");
    await page.fill("[data-testid=enroll-code]", real.enrollmentCode);
    await page.click("[data-testid=enroll-submit]");
    await waitForMessage(page, "Passkey registered.");
    expect(await tab.credentials()).toHaveLength(1);

    // The person approves the bridge's request as offered, with the passkey.
    await page.goto(link.approvalUrl as string);
    await page.waitForSelector("body[data-ready=true]");
    await page.click("[data-testid=approve]");
    await waitForMessage(page, "Lease granted.");

    const granted = structured(await call("t3_pedir_aprovacao", {}));
    expect(granted).toMatchObject({ authorized: true });
    const leaseId = granted.leaseId as string;
    expect(leaseId).toBeTypeOf("string");

    // A write inside the lease reaches the simulator exactly once.
    const args = {
      leaseId,
      environment: "alpha",
      operationId: "op-stdio-pin",
      input: { threadId: IDLE_THREAD },
    };
    const first = await call("t3_escrever_thread_pin", args);
    expect(first.isError, textOf(first)).toBeFalsy();
    expect(structured(first)).toMatchObject({
      state: "completed",
      replayed: false,
      action: "thread.pin",
      environmentId: alpha.environmentId,
    });
    expect(alpha.model.receivedCommands).toHaveLength(1);
    expect(alpha.model.receivedCommands[0]).toMatchObject({
      type: "thread.pin",
      payload: expect.objectContaining({ threadId: IDLE_THREAD }),
    });
    expect(real.world.commandCount()).toBe(1);

    // The same call with the same operationId is answered from the journal: nothing is resent.
    const again = await call("t3_escrever_thread_pin", args);
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(structured(again)).toMatchObject({ state: "completed", replayed: true });
    expect(alpha.model.receivedCommands).toHaveLength(1);

    // The same operationId with another input is a conflict, not a write.
    const conflict = await call("t3_escrever_thread_pin", { ...args, input: { threadId: RUNNING_THREAD } });
    expect(conflict.isError).toBe(true);
    expect(textOf(conflict)).toMatch(/^operation_conflict/);
    expect(real.world.commandCount()).toBe(1);

    // A legacy key is answered by the bridge as a tool error before anything is relayed.
    const { environment: _dropped, ...rest } = args;
    if (client === undefined) throw new Error("the bridge client did not connect");
    const legacy = await toolInputError(client, "t3_escrever_thread_pin", {
      ...rest,
      operationId: "op-stdio-legacy",
      ambiente: "alpha",
    });
    expect(legacy.code).toBe("invalid_input");
    expect(legacy.hint).toContain('"ambiente" is now "environment"');
    expect(real.world.commandCount()).toBe(1);
  }, 120_000);
});
