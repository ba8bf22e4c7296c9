import { ManualDeadlines } from "@t3-connector/test-support/manual-deadlines";
import { describe, expect, it } from "vitest";
import type { ConnectedEnvironment } from "../../src/environments/index.js";
import { ConnectorError } from "../../src/errors.js";
import { fanOut } from "../../src/fanout/index.js";

// Reads through an ssh tunnel (a stand-in ssh process) are in fan-out-over-ssh.e2e.test.ts: the
// unit tier starts no process.
// Aliases sort the other way round from environmentIds, so order by id is observable.
import { ENVIRONMENTS, readThreadCount, useFanOutWorld } from "./support/fan-out-world.js";

const world = useFanOutWorld();

describe("fan-out", () => {
  it("returns a flagged envelope with one slow, one impostor and one healthy environment", async () => {
    world.sim.environment("yankee").faults.set({ hang: true });
    world.sim.environment("xray").faults.set({ wrongEnvironmentId: "env-impostor" });
    const reg = await world.registry(["xray", "yankee", "zulu"]);
    // yankee's deadline expires once it holds the read; zulu's never fires, however loaded the machine.
    const deadlines = new ManualDeadlines();
    const held = new Promise<void>((resolve) => {
      const stop = world.sim.environment("yankee").faults.onHeld(() => {
        stop();
        resolve();
      });
    });
    const result = await deadlines.timingOut(
      "yankee",
      () => fanOut(reg.environments, readThreadCount, { deadlines }),
      held,
    );

    expect(result.complete).toBe(false);
    expect(result.results.map((r) => r.environment)).toEqual([
      { alias: "zulu", environmentId: "env-1", name: world.sim.environment("zulu").label },
    ]);
    expect(result.queriedEnvironments).toEqual([
      {
        alias: "zulu",
        environmentId: "env-1",
        name: world.sim.environment("zulu").label,
        found: result.results[0]?.value.length,
      },
    ]);
    expect(result.environmentFailures).toEqual([
      { alias: "yankee", environmentId: "env-2", code: "timeout", reason: expect.any(String) },
      {
        alias: "xray",
        environmentId: "env-3",
        code: "environment_mismatch",
        reason: "the server answered as another environment (expected env-3, got env-impostor)",
      },
    ]);
  });

  it("processes environments in environmentId order and returns them in that order", async () => {
    const reg = await world.registry(["uniform", "whiskey", "zulu", "xray"]);
    const started: string[] = [];
    const result = await fanOut(
      [...reg.environments].reverse(),
      async (env) => {
        started.push(env.environmentId);
        return env.alias;
      },
      { concurrency: 1 },
    );
    expect(started).toEqual(["env-1", "env-3", "env-4", "env-6"]);
    expect(result.results.map((r) => r.value)).toEqual(["zulu", "xray", "whiskey", "uniform"]);
    expect(result.complete).toBe(true);
    expect(result.environmentFailures).toEqual([]);
  });

  it("never runs more reads at once than the concurrency bound, and reaches it", async () => {
    const reg = await world.registry(ENVIRONMENTS.map((e) => e.alias));
    const bound = 4;
    let inFlight = 0;
    let maxInFlight = 0;
    let started = 0;
    let waiting: Array<() => void> = [];
    // Each read waits until the bound is reached (or nothing else can start), so a sweep that ran
    // fewer reads in parallel would stall into timeouts, and one that ran more would be counted.
    const result = await fanOut(
      reg.environments,
      async (env, signal) => {
        inFlight++;
        started++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        if (inFlight >= bound || started === ENVIRONMENTS.length) {
          for (const release of waiting) release();
          waiting = [];
        } else {
          await new Promise<void>((resolve) => waiting.push(resolve));
        }
        const shell = await env.http.getShell({ signal });
        inFlight--;
        return shell.threads.length;
      },
      { concurrency: bound },
    );
    expect(result.complete).toBe(true);
    expect(result.results).toHaveLength(ENVIRONMENTS.length);
    expect(maxInFlight).toBe(bound);
  });

  it("aborts a stalled environment on the real timer by default", async () => {
    world.sim.environment("yankee").faults.set({ hang: true });
    const reg = await world.registry(["yankee"]);
    const result = await fanOut(reg.environments, readThreadCount, { perEnvironmentTimeoutMs: 200 });
    expect(result.complete).toBe(false);
    expect(result.results).toEqual([]);
    expect(result.environmentFailures.map((f) => [f.alias, f.code])).toEqual([["yankee", "timeout"]]);
  });

  it("stops at the call deadline: the running and the never-started environments are global timeouts", async () => {
    for (const alias of ["zulu", "yankee", "xray"]) world.sim.environment(alias).faults.set({ hang: true });
    const reg = await world.registry(["zulu", "yankee", "xray"]);
    const result = await fanOut(reg.environments, readThreadCount, {
      concurrency: 1,
      perEnvironmentTimeoutMs: 60_000,
      totalTimeoutMs: 300,
    });
    expect(result.complete).toBe(false);
    expect(result.results).toEqual([]);
    expect(result.environmentFailures.map((f) => [f.alias, f.code])).toEqual([
      ["zulu", "global_timeout"],
      ["yankee", "global_timeout"],
      ["xray", "global_timeout"],
    ]);
  });

  it("retries a read once after a dropped transport, and never when the work has side effects", async () => {
    const reg = await world.registry(["zulu"]);
    let calls = 0;
    const flaky = async (env: ConnectedEnvironment, signal: AbortSignal) => {
      calls++;
      if (calls === 1) throw new ConnectorError("connection_lost", "socket dropped");
      return (await env.http.getShell({ signal })).threads.length;
    };
    const read = await fanOut(reg.environments, flaky);
    expect(calls).toBe(2);
    expect(read.complete).toBe(true);

    calls = 0;
    const write = await fanOut(reg.environments, flaky, { sideEffects: true });
    expect(calls).toBe(1);
    expect(write.environmentFailures).toEqual([
      {
        alias: "zulu",
        environmentId: "env-1",
        code: "unavailable",
        reason: "the environment could not be reached",
      },
    ]);

    calls = 0;
    const refusedOnce = await fanOut(reg.environments, async () => {
      calls++;
      throw new ConnectorError("rpc_failure", "typed refusal", { t3: { tag: "SomeError" } });
    });
    expect(calls).toBe(1);
    expect(refusedOnce.environmentFailures[0]?.code).toBe("connection_refused");
  });

  it("reads a wrong token as unauthorized, the word diagnose uses", async () => {
    const reg = await world.registry(["zulu", "yankee"], {
      zulu: { tokenFile: await world.tokens.write("zulu-wrong", "not-a-token-t3-issued") },
    });
    const result = await fanOut(reg.environments, readThreadCount);
    expect(
      result.environmentFailures.map((failure) => [failure.alias, failure.code, failure.reason]),
    ).toEqual([["zulu", "unauthorized", "the environment refused the token; pair it again"]]);
    expect(result.queriedEnvironments.map((queried) => queried.alias)).toEqual(["yankee"]);
  });

  it("retries once when the socket drops under a read in flight, on a fresh socket", async () => {
    const reg = await world.registry(["zulu"]);
    const sockets: unknown[] = [];
    const result = await fanOut(reg.environments, async (env) => {
      const rpc = await env.rpc();
      sockets.push(rpc);
      const answer = rpc.getConfig();
      if (sockets.length === 1) world.sim.environment("zulu").dropSockets();
      return answer;
    });
    expect(sockets).toHaveLength(2);
    expect(sockets[1]).not.toBe(sockets[0]);
    expect(result.complete).toBe(true);
  });

  it("throws cancelled when the caller cancels, instead of recording a partial failure", async () => {
    world.sim.environment("yankee").faults.set({ hang: true });
    const reg = await world.registry(["zulu", "yankee"]);
    const controller = new AbortController();
    const sweep = fanOut(
      reg.environments,
      async (env, signal) => {
        if (env.alias === "zulu") controller.abort();
        return readThreadCount(env, signal);
      },
      { signal: controller.signal, perEnvironmentTimeoutMs: 60_000, totalTimeoutMs: 60_000 },
    );
    await expect(sweep).rejects.toMatchObject({ code: "cancelled" });
    await expect(
      fanOut(reg.environments, readThreadCount, { signal: controller.signal }),
    ).rejects.toMatchObject({
      code: "cancelled",
    });
  });

  it("words a 401 on a verified connection as a token refusal", async () => {
    const reg = await world.registry(["zulu"]);
    await reg.connect("zulu");
    world.sim.environment("zulu").faults.set({ expireTokens: true });
    const result = await fanOut(reg.environments, readThreadCount);
    expect(result.environmentFailures).toEqual([
      {
        alias: "zulu",
        environmentId: "env-1",
        code: "unauthorized",
        reason: "the environment refused the token; pair it again",
      },
    ]);
  });
});
