/**
 * docs/push-to-phone.md, run as written: its shell blocks and push-to-phone.mjs are read from the
 * page, run in a fresh HOME with the built `t3-connector events` against a real gate, and a stand-in
 * ntfy server on loopback must receive the push for an approval request, with the approval link
 * as its click target.
 *
 * What the test fills in, and only that, in the page's shell lines: a free port instead of 8788 and
 * the ntfy server's address, a `t3-connector` on PATH that runs the built CLI (the page's PATH
 * step), the read and write configs, and (tests do not download) the workspace's own
 * `standardwebhooks` linked where `npm install` would put it. The script is saved exactly as the
 * page shows it: it takes its port and ntfy server from the environment its command line sets.
 */

import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inboxItemId } from "@t3-connector/core/state";
import { DocRecipeHome, recipeBlocks } from "@t3-connector/test-support/doc-recipe";
import { freePort } from "@t3-connector/test-support/free-port";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { addThread, type SimEvents, startRun, startSimEvents } from "@t3-connector/test-support/sim-events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DOC = fileURLToPath(new URL("../../../../docs/push-to-phone.md", import.meta.url));
const NPM_INSTALL = "npm install standardwebhooks";
const ORIGIN = "https://t3c.example.com";

let gate: RealGate;
let simEvents: SimEvents;
let recipe: DocRecipeHome;
let ntfy: Server;
const pushes: Array<Record<string, unknown>> = [];
const pushWaiters: Array<() => void> = [];

beforeAll(async () => {
  recipe = await DocRecipeHome.create("t3-push-recipe-");
  [gate, simEvents] = await Promise.all([
    startRealGate({ remoteApproval: { origin: ORIGIN, oauthStateDir: path.join(recipe.home, "oauth") } }),
    startSimEvents(),
  ]);
  Object.assign(recipe.env, {
    T3_CONNECTOR_CONFIG: simEvents.simConfig.configPath,
    T3_CONNECTOR_WRITE_CONFIG: gate.config.path,
  });
  // The stand-in ntfy: records each JSON publish and answers as ntfy does.
  ntfy = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      pushes.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      for (const wake of pushWaiters.splice(0)) wake();
      response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  ntfy.listen(0, "127.0.0.1");
  await once(ntfy, "listening");
}, 60_000);

afterAll(async () => {
  await recipe?.close();
  ntfy?.close();
  await simEvents?.close();
  await gate?.close();
});

async function nextPush(match: (push: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (;;) {
    const found = pushes.find(match);
    if (found !== undefined) return found;
    await new Promise<void>((resolve) => pushWaiters.push(resolve));
  }
}

describe("docs/push-to-phone.md", () => {
  it("works as written: an approval request reaches the phone's ntfy topic with the approval link, an agent's wait with its inbox link, and its answer clears it", async () => {
    const { setup, connect, script } = await recipeBlocks(DOC);
    const port = String(await freePort());
    const ntfyServer = `http://127.0.0.1:${(ntfy.address() as AddressInfo).port}`;
    const fill = (text: string) =>
      text.replaceAll("8788", port).replaceAll("https://ntfy.example.com", ntfyServer);
    const lines = fill(setup)
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));
    const serverIndex = lines.findIndex((line) => line.includes("node push-to-phone.mjs"));
    expect(serverIndex).toBeGreaterThan(0);
    expect(setup).toContain(NPM_INSTALL);

    const directory = await recipe.runSetup(lines.slice(0, serverIndex), {
      command: NPM_INSTALL,
      resolveFrom: new URL("../../../events/package.json", import.meta.url).href,
    });
    expect(directory).toBe(path.join(recipe.home, "t3-push"));
    expect(script).not.toContain(port);
    await writeFile(path.join(directory, "push-to-phone.mjs"), script);
    const receiver = recipe.background((lines[serverIndex] ?? "").trim(), directory);
    await receiver.line(new RegExp(`listening on http://127.0.0.1:${port}/hook`));
    const connector = recipe.background(fill(connect).trim(), directory);
    await connector.line(/approval events from the gate on port/);

    const asked = await gate.relay({
      op: "request_approval",
      purpose: "pin the release thread",
      actions: ["thread.pin"],
      client: { name: "ChatGPT", signedInAt: "2026-12-06T17:02:00.000Z" },
    });
    const requestId = (asked.body as { requestId: string }).requestId;
    const push = await nextPush((candidate) => candidate.title === "ChatGPT asks to write");
    expect(push).toMatchObject({
      topic: "t3-approvals-7f3k2",
      click: `${ORIGIN}/approve?request=${requestId}`,
      priority: 4,
    });
    expect(push.message).toContain('"pin the release thread"');
    expect(push.message).toContain("thread.pin");
    await receiver.line(new RegExp(`pushed approval\\.requested for ${requestId}`));

    // An agent waits on an approval: the push opens its inbox item; answered in T3, it is cleared.
    const threadId = addThread(simEvents.env, "Deploy the docs");
    await startRun(simEvents.env, threadId, { approval: true });
    simEvents.env.clock.advance(1_000);
    const waiting = await nextPush((candidate) => candidate.title === "Deploy the docs needs approval");
    const shell = simEvents.env.model.getThread(threadId)?.shell as
      | { pendingRuntimeRequest?: { id: string } }
      | undefined;
    const requestId2 = shell?.pendingRuntimeRequest?.id ?? "";
    expect(waiting).toMatchObject({
      click: `${ORIGIN}/inbox#${inboxItemId(simEvents.env.environmentId, threadId, requestId2)}`,
      priority: 4,
    });
    const answered = await simEvents.env.model.callUnary("orchestration.dispatchCommand", {
      commandId: "answered-in-t3",
      type: "runtime-request.respond",
      threadId,
      requestId: requestId2,
      decision: "accept",
    });
    expect(answered.kind).toBe("success");
    simEvents.env.clock.advance(1_000);
    await nextPush((candidate) => candidate.title === "Deploy the docs was answered");
    // The recipe runs with the default grace period: each waiting push came after it, 10 s apiece.
  }, 120_000);
});
