import { createServer } from "node:net";
import { freePort } from "@t3-connector/test-support/free-port";
import { describe, expect, it } from "vitest";
import { RawRpcClient, startSim } from "./helpers.js";

function resourceCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

describe("simulator lifecycle", () => {
  it("gives each environment its own loopback port and finds it by alias", async () => {
    const sim = await startSim({
      environments: [{ alias: "alpha" }, { alias: "beta", environmentId: "env-beta" }],
    });
    try {
      const [alpha, beta] = sim.environments;
      expect(alpha?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(alpha?.port).not.toBe(beta?.port);
      expect(sim.environment("beta").environmentId).toBe("env-beta");
      expect(alpha?.environmentId).toMatch(/^[0-9a-f-]{36}$/);
      expect(() => sim.environment("gamma")).toThrow(/unknown environment alias/);
    } finally {
      await sim.close();
    }
  });

  it("listens on a requested port", async () => {
    const port = await freePort();
    const sim = await startSim({ environments: [{ alias: "alpha", port }] });
    try {
      expect(sim.environment("alpha").url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await sim.close();
    }
  });

  it("close() frees the ports and leaves no sockets or timers behind, even mid-stream and mid-request", async () => {
    // Ports from below the ephemeral range: once the simulator closes them, no other test's
    // connection or listen(0) can take them before this test binds them again.
    const ports = [await freePort(), await freePort()];
    const before = resourceCounts();
    const sim = await startSim({
      environments: [
        { alias: "alpha", port: ports[0] },
        { alias: "beta", port: ports[1] },
      ],
    });
    const env = sim.environment("alpha");
    const client = await RawRpcClient.connect(env.url, env.readToken);
    client.request("1", "orchestration.subscribeShell", {});
    await client.next((f) => f._tag === "Chunk");
    client.send({ _tag: "Ping" });
    await client.next((f) => f._tag === "Pong");
    // A slow answer (latency timer armed on the socket) and a parked HTTP request (hang).
    env.faults.set({ latencyMs: 60_000 });
    client.send({ _tag: "Ping" });
    const held = new Promise<void>((resolve) => env.faults.onHeld((what) => what === "http" && resolve()));
    env.faults.set({ hang: true });
    const pending = fetch(`${env.url}/.well-known/t3/environment`).catch(() => "failed");
    await held;
    expect(sim.environments.map((e) => e.port)).toEqual(ports);
    await sim.close();
    await client.closed;
    expect(await pending).toBe("failed");
    const after = resourceCounts();
    for (const kind of ["TCPServerWrap", "TCPSocketWrap", "Timeout"]) {
      expect(after[kind] ?? 0, kind).toBeLessThanOrEqual(before[kind] ?? 0);
    }
    for (const port of ports) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("stop() ends one environment and leaves the others running", async () => {
    const sim = await startSim({ environments: [{ alias: "alpha" }, { alias: "beta" }] });
    try {
      await sim.environment("alpha").stop();
      await expect(fetch(`${sim.environment("alpha").url}/.well-known/t3/environment`)).rejects.toThrow();
      expect((await fetch(`${sim.environment("beta").url}/.well-known/t3/environment`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it("refuses two environments with the same alias", async () => {
    await expect(startSim({ environments: [{ alias: "alpha" }, { alias: "alpha" }] })).rejects.toThrow(
      /duplicate/,
    );
  });
});
