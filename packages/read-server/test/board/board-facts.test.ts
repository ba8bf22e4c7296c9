/**
 * The board's facts on `t3_control_plane`'s result (`_meta["t3-connector/board"]`, ADR 0064):
 * T3's web origin only for an environment reached by URL whose server declared protocol 2, the
 * approval origin only for a session whose own server lists `t3_pedir_aprovacao`, and the
 * structured result exactly as before. The session parts are the HTTP edge's own
 * (`serverPartsFor` over a real `UrlWrites`), so the facts follow what `tools/list` shows.
 */

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { WriteConfig } from "@t3-connector/core/config";
import { inboxItemId } from "@t3-connector/core/state";
import { WRITE_SCOPE } from "@t3-connector/oauth";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approvalOriginOf, BOARD_FACTS_META_KEY, webOriginOf } from "../../src/board/board-facts.js";
import { UrlWrites } from "../../src/http/url-writes.js";
import { serverPartsFor } from "../../src/http/write-session-parts.js";
import { createReadServer } from "../../src/server.js";
import { readToolDefinitions } from "../../src/tools/index.js";
import { ALPHA_ID, BETA_ID } from "../tools/listing-support.js";

let setup: SimReadSetup;
let stateDir: string;
const opened: Array<{ close(): Promise<void> }> = [];

beforeEach(async () => {
  setup = await startSimRead({
    simulator: {
      environments: [
        { alias: "alpha", environmentId: ALPHA_ID, label: "Alpha laptop", seed: "demo" },
        // A transitional V2 server (0.0.31): its web app's routes are not known.
        { alias: "beta", environmentId: BETA_ID, label: "Beta server", seed: "demo", transitional: true },
      ],
    },
    definitions: readToolDefinitions,
  });
  stateDir = await mkdtemp(path.join(os.tmpdir(), "t3-board-facts-"));
});

afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
  await setup.close();
  await rm(stateDir, { recursive: true, force: true });
});

type Facts = {
  approvalOrigin: string | null;
  t3Origins: Record<string, string>;
  inboxOrigin: string | null;
  inboxLinks: Record<string, string>;
  inboxCount: number;
};

async function controlPlane(client: Client) {
  const result = await client.callTool({ name: "t3_control_plane", arguments: { limit: 50 } });
  return {
    result,
    facts: (result._meta as Record<string, unknown> | undefined)?.[BOARD_FACTS_META_KEY] as Facts,
  };
}

/** A `serve --http` session's server: the read tools, and the write tools when `scope` has t3:write. */
async function sessionClient(config: WriteConfig, scope: string[]): Promise<Client> {
  const writes = new UrlWrites({ config, log: () => {}, info: () => {} });
  const access = {
    sessionId: `session-${scope.join("-")}`,
    clientId: "client-1",
    clientName: "Board test",
    sessionStartedAt: Date.now(),
    scope,
    resource: "http://127.0.0.1/mcp",
    expiresAt: Date.now() + 60_000,
  };
  const authInfo = { token: "", clientId: "client-1", scopes: scope, extra: { access } };
  const server = createReadServer(readToolDefinitions, setup.context, serverPartsFor(writes, authInfo));
  const client = new Client({ name: "board-facts-test", version: "0.0.0" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  opened.push({ close: () => client.close() }, { close: () => server.close() });
  return client;
}

function writeConfig(remoteApproval?: { origin: string }): WriteConfig {
  return {
    path: path.join(stateDir, "write.json"),
    port: 47_123,
    stateDir,
    environments: [],
    ...(remoteApproval === undefined
      ? {}
      : { remoteApproval: { ...remoteApproval, oauthStateDir: stateDir } }),
  } as unknown as WriteConfig;
}

describe("the board's facts on the control plane's result", () => {
  it("name T3's web origin only where it is known, and leave the structured result as it was", async () => {
    const { result, facts } = await controlPlane(setup.client);
    const alphaUrl = setup.sim.environment("alpha").url;
    expect(facts).toMatchObject({
      approvalOrigin: null,
      t3Origins: { [ALPHA_ID]: new URL(alphaUrl).origin },
      // No approval from afar: no inbox links (its localhost page is not for a host to open).
      inboxOrigin: null,
      inboxLinks: {},
    });
    expect(facts.inboxCount).toBeGreaterThan(0);
    // The view's data only: nothing new in what the model reads, and no other tool carries it.
    const structured = result.structuredContent as Record<string, unknown>;
    expect(Object.keys(structured)).not.toContain("t3Origins");
    expect(JSON.stringify(result.content)).not.toContain(BOARD_FACTS_META_KEY);
    const other = await setup.client.callTool({ name: "t3_atencao", arguments: {} });
    expect(other._meta?.[BOARD_FACTS_META_KEY]).toBeUndefined();
  });

  it("leave out an environment that did not answer", async () => {
    setup.sim.environment("alpha").faults.set({ httpStatus: 502 });
    const { facts } = await controlPlane(setup.client);
    expect(facts.t3Origins).toEqual({});
  });

  it("name the approval origin only to a session whose server lists t3_pedir_aprovacao", async () => {
    const config = writeConfig({ origin: "https://connector.example" });
    const writer = await sessionClient(config, ["t3:read", WRITE_SCOPE]);
    const listed = (await writer.listTools()).tools.map((tool) => tool.name);
    expect(listed).toContain("t3_pedir_aprovacao");
    expect((await controlPlane(writer)).facts.approvalOrigin).toBe("https://connector.example");

    const reader = await sessionClient(config, ["t3:read"]);
    expect((await reader.listTools()).tools.map((tool) => tool.name)).not.toContain("t3_pedir_aprovacao");
    expect((await controlPlane(reader)).facts.approvalOrigin).toBeNull();
  });

  it("link each waiting thread to its inbox item on the issuer origin only, and count them", async () => {
    const config = writeConfig({ origin: "https://connector.example" });
    const reader = await sessionClient(config, ["t3:read"]);
    const { result, facts } = await controlPlane(reader);
    expect(facts.inboxOrigin).toBe("https://connector.example");
    const waiting = (
      result.structuredContent as {
        needsIntervention: {
          threads: {
            environment: { environmentId: string };
            threadId: string;
            pendingRequest: { requestId: string } | null;
          }[];
        };
      }
    ).needsIntervention.threads.filter((item) => item.pendingRequest !== null);
    expect(waiting.length).toBeGreaterThan(0);
    expect(facts.inboxCount).toBe(waiting.length);
    for (const item of waiting) {
      const key = `${item.environment.environmentId} ${item.threadId}`;
      expect(facts.inboxLinks[key]).toBe(
        `https://connector.example/inbox#${inboxItemId(item.environment.environmentId, item.threadId, item.pendingRequest?.requestId ?? "")}`,
      );
    }
  });

  it("follow the gate's own rule for the origin: the public one from afar, else its localhost page", () => {
    expect(approvalOriginOf({ port: 47_123 })).toBe("http://localhost:47123");
    expect(
      approvalOriginOf({
        port: 47_123,
        remoteApproval: { origin: "https://a.example", oauthStateDir: "/x" },
      }),
    ).toBe("https://a.example");
  });
});

describe("an environment's T3 web origin", () => {
  const url = (value: string) => ({ kind: "url" as const, url: value });
  it("is its URL's origin only when the URL is a bare origin and the server declared protocol 2", () => {
    expect(webOriginOf(url("https://t3.example"), "descriptor")).toBe("https://t3.example");
    expect(webOriginOf(url("http://127.0.0.1:3773"), "descriptor")).toBe("http://127.0.0.1:3773");
    // A proxy prefix: the web app's routes start at its root, so where they are is not known.
    expect(webOriginOf(url("https://proxy.example/t3"), "descriptor")).toBeUndefined();
    // A transitional server (no protocol in its descriptor): its web build's routes are not known.
    expect(webOriginOf(url("https://t3.example"), "shell-schema")).toBeUndefined();
    // A tunnel: the address is this process's own loopback port.
    expect(webOriginOf({ kind: "ssh", host: "box", remotePort: 3773 }, "descriptor")).toBeUndefined();
  });
});
