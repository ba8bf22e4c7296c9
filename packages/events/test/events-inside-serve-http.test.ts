/**
 * The events as a background service of `serve --http` (its `services` seam), on the server's own
 * read context: one subscription per environment serves the reads and the events.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readToolDefinitions, serveHttp } from "@t3-connector/read-server";
import { captureStreams } from "@t3-connector/test-support/captured-io";
import {
  addThread,
  latestRun,
  type SimEvents,
  startRun,
  startSimEvents,
} from "@t3-connector/test-support/sim-events";
import { newSecret, WebhookReceiver } from "@t3-connector/test-support/webhook-receiver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventsBackgroundService } from "../src/index.js";

let simEvents: SimEvents;
let receiver: WebhookReceiver;
let secret: string;
let stateDir: string;

beforeEach(async () => {
  simEvents = await startSimEvents();
  secret = newSecret();
  receiver = new WebhookReceiver(secret);
  await receiver.start();
  stateDir = path.join(await mkdtemp(path.join(os.tmpdir(), "t3-events-http-")), "state");
});

afterEach(async () => {
  await receiver.stop();
  await simEvents.close();
  await rm(path.dirname(stateDir), { recursive: true, force: true });
});

describe("events inside serve --http", () => {
  it("follows the server's environments and delivers a completed run, and stops with the server", async () => {
    const streams = captureStreams({ T3_CONNECTOR_CONFIG: simEvents.simConfig.configPath });
    let followed!: () => void;
    const ready = new Promise<void>((resolve) => {
      followed = resolve;
    });
    let stop!: (signal: string) => void;
    const exitCode = serveHttp(
      streams.io,
      readToolDefinitions,
      { host: "127.0.0.1", port: 0, allowedHosts: [], allowedOrigins: [] },
      {
        services: (context) => [
          eventsBackgroundService(
            { hookUrl: receiver.url, secret, stateDir, onReady: () => followed() },
            context,
          ),
        ],
        stopSignal: new Promise((resolve) => {
          stop = resolve;
        }),
      },
    );
    await streams.stdoutLine();
    await ready;

    const threadId = addThread(simEvents.env, "Served and followed");
    await startRun(simEvents.env, threadId, {});
    simEvents.env.clock.advance(1_000);
    await receiver.until(() => receiver.accepted.size === 1);
    const [event] = [...receiver.accepted.values()];
    expect(event).toMatchObject({
      type: "run.completed",
      data: { thread: { id: threadId }, run: { id: latestRun(simEvents.env, threadId).id } },
    });

    stop("test end");
    expect(await exitCode).toBe(0);
  });
});
