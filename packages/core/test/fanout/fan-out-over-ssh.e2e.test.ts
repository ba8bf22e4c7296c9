import { describe, expect, it } from "vitest";
import { fanOut } from "../../src/fanout/index.js";

// Aliases sort the other way round from environmentIds, so order by id is observable.
import { readThreadCount, useFanOutWorld } from "./support/fan-out-world.js";

const world = useFanOutWorld();

describe("fan-out over ssh", () => {
  it("starts a new ssh tunnel on the next sweep after the previous one was killed", async () => {
    const env = world.sim.environment("zulu");
    const port = Number(new URL(env.url).port);
    const reg = await world.registry(["zulu"], {
      zulu: { transport: { kind: "ssh", host: "devbox", remotePort: port } },
    });
    const first = await fanOut(reg.environments, readThreadCount);
    expect(first.complete).toBe(true);
    const handle = reg.resolve("zulu");
    const firstPid = handle.tunnelPid ?? -1;
    process.kill(firstPid, "SIGKILL");
    // The next sweep finds the tunnel dead, starts another ssh and answers.
    const second = await fanOut(reg.environments, readThreadCount);
    expect(second.complete).toBe(true);
    expect(handle.tunnelPid).toBeTypeOf("number");
    expect(handle.tunnelPid).not.toBe(firstPid);
  });

  it("answers a normal envelope when every environment fails, without secrets or ssh output in reasons", async () => {
    world.sim.environment("xray").faults.set({ httpStatus: 500 });
    const reg = await world.registry(["zulu", "yankee", "xray"], {
      zulu: { transport: { kind: "ssh", host: "fail-devbox", remotePort: 1 } },
      yankee: { tokenFile: `${world.tokens.dir}/not-there` },
    });
    const result = await fanOut(reg.environments, readThreadCount);
    expect(result).toMatchObject({ results: [], complete: false, queriedEnvironments: [] });
    expect(result.environmentFailures.map((f) => [f.alias, f.code])).toEqual([
      ["zulu", "unavailable"],
      ["yankee", "connection_refused"],
      ["xray", "http_500"],
    ]);
    const reasons = result.environmentFailures.map((f) => f.reason).join("\n");
    expect(reasons).not.toContain("Connection refused");
    expect(reasons).not.toContain("ssh:");
    expect(reasons).not.toContain(world.tokens.dir);
    expect(reasons).not.toMatch(/\bat .*\.ts:\d+/);
  });
});
