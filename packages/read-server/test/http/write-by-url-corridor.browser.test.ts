/**
 * One write by URL, as the code it runs (ADR 0072), from V8's precise coverage over one
 * `t3_escrever_thread_title` call of a signed-in OAuth session, after a first call warmed every
 * module: serve, the gate, the engine and the simulator run in this one process, so every
 * connector source file the call touches on its way to T3 and back is counted. The corridor is
 * serve → gate → engine → T3, each hop once: the action input is parsed once (`prepareAction`),
 * the relay capability checked once, and the session's lease bookkeeping is the bridge's own, so
 * no read-server file runs between the bridge's tool and its relay client.
 */
import { type CoverageProbe, startCoverageProbe } from "@t3-connector/test-support/executed-code";
import { IDLE_THREAD } from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveOnGatePage,
  call,
  type SignedIn,
  signInByUrl,
  startUrlWritesLoop,
  structured,
  textOf,
  type UrlWritesLoop,
} from "./support/url-writes-loop.js";

let loop: UrlWritesLoop;
let writer: SignedIn;
let probe: CoverageProbe;

beforeAll(async () => {
  loop = await startUrlWritesLoop();
  writer = await signInByUrl(loop, { scope: "t3:read t3:write", name: "corridor-client" });
  probe = await startCoverageProbe();
}, 120_000);

afterAll(async () => {
  await probe?.stop();
  await writer?.client.close();
  await loop?.close();
});

describe("one write by URL", () => {
  it("runs through serve, the gate, the engine and T3, each once", async () => {
    const purpose = "retitle the idle thread by URL";
    const asked = structured(
      await call(writer.client, "t3_pedir_aprovacao", { purpose, actions: ["thread.title"] }),
    );
    await approveOnGatePage(loop.approval.page, asked.approvalUrl as string, purpose);
    const lease = structured(await call(writer.client, "t3_pedir_aprovacao", {}));
    expect(lease).toMatchObject({ authorized: true });
    const retitle = async (n: number) => {
      const answer = await call(writer.client, "t3_escrever_thread_title", {
        leaseId: lease.leaseId,
        environment: "alpha",
        operationId: `op-corridor-${n}`,
        input: { threadId: IDLE_THREAD, title: `corridor ${n}` },
      });
      expect(answer.isError, textOf(answer)).toBeFalsy();
      expect(structured(answer)).toMatchObject({ state: "completed", replayed: false });
    };
    await retitle(1);
    await probe.take();
    const before = loop.gate.world.commandCount();
    await retitle(2);
    const ran = await probe.take();
    expect(loop.gate.world.commandCount()).toBe(before + 1);

    const connector = ran.files.filter((file) => !file.startsWith("t3-sim/"));
    const byPackage = new Map<string, number>();
    for (const file of connector) {
      const name = file.slice(0, file.indexOf("/"));
      byPackage.set(name, (byPackage.get(name) ?? 0) + 1);
    }
    process.stderr.write(
      `write by URL: ${connector.length} connector files ran for one call ` +
        `(${[...byPackage].map(([name, count]) => `${name} ${count}`).join(", ")}; the simulator ` +
        `${ran.files.length - connector.length}); prepareAction ${ran.calls("actions/catalogue.ts", "prepareAction")}, ` +
        `capabilityMatches ${ran.calls("relay/capability.ts", "capabilityMatches")}\n${connector.join("\n")}\n`,
    );
    expect(connector.length).toBeGreaterThan(0);
  }, 90_000);
});
