/**
 * `t3-connector serve --http` with an `events` section in its read config: the spawned server
 * answers MCP over HTTP and, on the same connections, delivers signed thread events to the
 * configured webhook, honouring the section's type filter. A bad section stops start-up naming
 * the field.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { addThread, type SimEvents, startRun, startSimEvents } from "@t3-connector/test-support/sim-events";
import { newSecret, WebhookReceiver } from "@t3-connector/test-support/webhook-receiver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectHttpClient, spawnHttpServe } from "./support/spawned-http-serve.js";

let simEvents: SimEvents;
let receiver: WebhookReceiver;
let dir: string;

beforeEach(async () => {
  simEvents = await startSimEvents();
  const secret = newSecret();
  receiver = new WebhookReceiver(secret);
  await receiver.start();
  dir = await mkdtemp(path.join(os.tmpdir(), "t3c-events-config-"));
  await writeFile(path.join(dir, "hook-secret"), secret, { mode: 0o600 });
});

afterEach(async () => {
  await receiver.stop();
  await simEvents.close();
  await rm(dir, { recursive: true, force: true });
});

/** The simulator's read config plus an `events` section. */
async function configWithEvents(events: Record<string, unknown>): Promise<string> {
  const base = JSON.parse(await readFile(simEvents.simConfig.configPath, "utf8")) as Record<string, unknown>;
  const configPath = path.join(dir, "config.json");
  await writeFile(configPath, JSON.stringify({ ...base, events }), { mode: 0o600 });
  return configPath;
}

describe("serve --http with an events section in its config", () => {
  it("serves the read tools and delivers only the configured event types to the webhook", async () => {
    const configPath = await configWithEvents({
      hookUrl: receiver.url,
      hookSecretFile: path.join(dir, "hook-secret"),
      stateDir: path.join(dir, "events-state"),
      types: ["run.completed"],
    });
    const served = await spawnHttpServe(configPath, ["--port", "0"]);
    try {
      await served.stderrContains('following "alpha"');
      const client = await connectHttpClient(served.ready.url);
      const tools = await client.listTools();
      expect(tools.tools).toHaveLength(15);

      // A question is a thread.needs_input event, which the section's filter leaves out.
      const asking = addThread(simEvents.env, "Asks first");
      await startRun(simEvents.env, asking, { ask: true });
      const finishing = addThread(simEvents.env, "Finishes");
      await startRun(simEvents.env, finishing, { reply: "done" });
      simEvents.env.clock.advance(1_000);
      await receiver.until(() => receiver.accepted.size >= 1);

      const delivered = [...receiver.accepted.values()];
      expect(delivered).toHaveLength(1);
      expect(delivered[0]).toMatchObject({ type: "run.completed", data: { thread: { id: finishing } } });
      const listed = await client.callTool({ name: "t3_threads", arguments: {} });
      expect(listed.isError).not.toBe(true);
      await client.close();
    } finally {
      expect(await served.stop()).toBe(0);
    }
    // The filter was applied, not just slow: the question had been raised before the completion.
    expect(receiver.acceptedOfType("thread.needs_input")).toHaveLength(0);
  });

  it("refuses to start, naming the field, when the events section is wrong", async () => {
    const configPath = await configWithEvents({
      hookUrl: receiver.url,
      hookSecretFile: path.join(dir, "hook-secret"),
      types: ["run.done"],
    });
    await expect(spawnHttpServe(configPath, ["--port", "0"])).rejects.toThrow(/events\.types/);
  });
});
