// Fan-out through ssh tunnels: each environment's tunnel is a stand-in ssh process
// (../environments/support/fake-ssh.ts), so these run in the e2e tier, beside the unit tier's fan-out.test.ts.
import type { TokenFiles } from "@t3-connector/test-support/token-files";
import { describe, expect, it } from "vitest";
import type { EnvironmentConfig } from "../../src/config/index.js";
import { type ConnectedEnvironment, EnvironmentRegistry, READ_SCOPES } from "../../src/environments/index.js";
import { fanOut } from "../../src/fanout/index.js";
import type { FakeSsh } from "../environments/support/fake-ssh.js";
import { type Simulator, useSimulatedEnvironments } from "../environments/support/simulated-environments.js";

// Aliases sort the other way round from environmentIds, so order by id is observable.
const ENVIRONMENTS = [
  { alias: "zulu", environmentId: "env-1" },
  { alias: "yankee", environmentId: "env-2" },
  { alias: "xray", environmentId: "env-3" },
  { alias: "whiskey", environmentId: "env-4" },
  { alias: "victor", environmentId: "env-5" },
  { alias: "uniform", environmentId: "env-6" },
];

let sim: Simulator;
let tokens: TokenFiles;
let fakeSsh: FakeSsh;

const registries = useSimulatedEnvironments(
  { environments: ENVIRONMENTS.map((e) => ({ ...e, seed: "demo" as const })), clock: "real" },
  (started) => {
    ({ sim, tokens, fakeSsh } = started);
  },
);

async function configs(aliases: string[], overrides: Record<string, Partial<EnvironmentConfig>> = {}) {
  return Promise.all(
    aliases.map(async (alias): Promise<EnvironmentConfig> => {
      const env = sim.environment(alias);
      return {
        alias,
        environmentId: env.environmentId,
        transport: { kind: "url", url: env.url },
        tokenFile: await tokens.write(alias, env.readToken),
        ...overrides[alias],
      };
    }),
  );
}

async function registry(aliases: string[], overrides: Record<string, Partial<EnvironmentConfig>> = {}) {
  return registries.keep(
    new EnvironmentRegistry({
      environments: await configs(aliases, overrides),
      requiredScopes: READ_SCOPES,
      ssh: { sshPath: fakeSsh.path },
    }),
  );
}

const readThreadCount = async (env: ConnectedEnvironment, signal: AbortSignal) =>
  (await env.http.getShell({ signal })).threads;

describe("fan-out over ssh", () => {
  it("starts a new ssh tunnel on the next sweep after the previous one was killed", async () => {
    const env = sim.environment("zulu");
    const port = Number(new URL(env.url).port);
    const reg = await registry(["zulu"], {
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
    sim.environment("xray").faults.set({ httpStatus: 500 });
    const reg = await registry(["zulu", "yankee", "xray"], {
      zulu: { transport: { kind: "ssh", host: "fail-devbox", remotePort: 1 } },
      yankee: { tokenFile: `${tokens.dir}/not-there` },
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
    expect(reasons).not.toContain(tokens.dir);
    expect(reasons).not.toMatch(/\bat .*\.ts:\d+/);
  });
});
