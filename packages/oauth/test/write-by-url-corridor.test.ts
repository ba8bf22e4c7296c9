/**
 * One write by URL, as the code it runs (ADR 0072), from V8's precise coverage over one
 * `t3_escrever_thread_title` call of an OAuth session granted `t3:write` (signed in through the
 * page's calls with a soft passkey), after a first call warmed every module. `serve --http`, the
 * gate, the engine and the simulator run in this one process, so every connector source file the
 * call touches on its way to T3 and back is counted. The corridor is serve → gate → engine → T3,
 * each hop once: the action input is prepared once (`prepareAction`), the relay capability is
 * checked once, the answer checked once (by the relay contract, not again as the tool's output),
 * and the session's lease bookkeeping is the bridge's own, so no read-server file runs between
 * the bridge's tool and its relay client.
 */
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CoverageProbe, startCoverageProbe } from "@t3-connector/test-support/executed-code";
import { MemoryProvider } from "@t3-connector/test-support/memory-provider";
import {
  type CallbackServer,
  type OAuthServe,
  startCallbackServer,
  startOAuthServe,
} from "@t3-connector/test-support/oauth-serve";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import { SoftPasskey } from "@t3-connector/test-support/soft-passkey";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInOnPage } from "./support/page-driver.js";

let gate: RealGate;
let serve: OAuthServe;
let callback: CallbackServer;
let client: Client;
let probe: CoverageProbe;

beforeAll(async () => {
  [gate, callback] = await Promise.all([startRealGate(), startCallbackServer()]);
  serve = await startOAuthServe({}, { env: { T3_CONNECTOR_WRITE_CONFIG: gate.config.path } });
  const provider = new MemoryProvider(callback.url);
  expect(await auth(provider, { serverUrl: serve.mcpUrl, scope: "t3:read t3:write" })).toBe("REDIRECT");
  const back = await signInOnPage(provider.authorizationUrl as URL, new SoftPasskey(serve.issuer), {
    enrollmentCode: serve.enrollmentCode,
    allowWrite: true,
  });
  const code = back.searchParams.get("code") as string;
  expect(await auth(provider, { serverUrl: serve.mcpUrl, authorizationCode: code })).toBe("AUTHORIZED");
  expect(provider.saved?.scope).toBe("t3:read t3:write");
  client = new Client({ name: "corridor-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.mcpUrl), { authProvider: provider }));
  probe = await startCoverageProbe();
}, 60_000);

afterAll(async () => {
  await probe?.stop();
  await client?.close();
  await serve?.close();
  await callback?.close();
  await gate?.close();
});

describe("one write by URL", () => {
  it("runs serve → gate → engine → T3, each hop once", async () => {
    // A lease for any holder (the keeper's own grant): the passkey ceremony is not what is measured.
    const leaseId = await gate.grantLease();
    const retitle = async (n: number) => {
      const answer = await client.callTool({
        name: "t3_escrever_thread_title",
        arguments: {
          leaseId,
          environment: "alpha",
          operationId: `op-corridor-${n}`,
          input: { threadId: IDLE_THREAD, title: `corridor ${n}` },
        },
      });
      expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
      expect(answer.structuredContent).toMatchObject({ state: "completed", replayed: false });
    };
    await retitle(1);
    await probe.take();
    const before = gate.world.commandCount();
    await retitle(2);
    const ran = await probe.take();
    expect(gate.world.commandCount()).toBe(before + 1);

    const connector = ran.files.filter((file) => !file.startsWith("t3-sim/"));
    const byPackage = new Map<string, number>();
    for (const file of connector) {
      const name = file.slice(0, file.indexOf("/"));
      byPackage.set(name, (byPackage.get(name) ?? 0) + 1);
    }
    const calls = (file: string, name: string) => `${name} ${ran.calls(file, name)}`;
    process.stderr.write(
      `write by URL: ${connector.length} connector files ran for one call ` +
        `(${[...byPackage].map(([name, count]) => `${name} ${count}`).join(", ")}; the simulator ` +
        `${ran.files.length - connector.length}); ` +
        [
          calls("actions/catalogue.ts", "prepareAction"),
          calls("relay/capability.ts", "capabilityMatches"),
          calls("relay-contract/results.ts", "parseRelayResult"),
          calls("relay-contract/requests.ts", "parseRelayRequest"),
        ].join(", ") +
        `\n${connector.join("\n")}\n`,
    );
    // The input prepared once, the capability checked once, the request and the answer parsed once.
    expect(ran.calls("actions/catalogue.ts", "prepareAction")).toBe(1);
    expect(ran.calls("relay/capability.ts", "capabilityMatches")).toBe(1);
    expect(ran.calls("relay-contract/requests.ts", "parseRelayRequest")).toBe(1);
    expect(ran.calls("relay-contract/results.ts", "parseRelayResult")).toBe(1);
    // The session's lease bookkeeping is the bridge's, between its tool and its relay client.
    expect(connector).toContain("write-bridge/src/session-leases.ts");
    expect(connector.filter((file) => file.startsWith("read-server/src/http/session"))).toEqual([]);
    // serve's read tools are one group per process: a request's server does not check them again.
    expect(ran.calls("core/src/schema/find-loose-object.ts", "findLooseObject")).toBe(0);
  }, 60_000);
});
