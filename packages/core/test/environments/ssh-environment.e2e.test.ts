import { type FakeSsh, isAlive } from "@t3-connector/test-support/fake-ssh";
import type { TokenFiles } from "@t3-connector/test-support/token-files";
import { describe, expect, it } from "vitest";
import type { EnvironmentConfig } from "../../src/config/index.js";
import { EnvironmentRegistry, READ_SCOPES } from "../../src/environments/index.js";
import { type Simulator, useSimulatedEnvironments } from "./support/simulated-environments.js";

let sim: Simulator;
let tokens: TokenFiles;
let fakeSsh: FakeSsh;

const registries = useSimulatedEnvironments(
  { environments: [{ alias: "remote", environmentId: "env-remote", seed: "demo" }] },
  (started) => {
    ({ sim, tokens, fakeSsh } = started);
  },
);

async function sshRegistry(host = "devbox") {
  const env = sim.environment("remote");
  const config: EnvironmentConfig = {
    alias: "remote",
    environmentId: env.environmentId,
    // The stand-in ssh forwards to 127.0.0.1:<remotePort>, here the simulator's own port.
    transport: { kind: "ssh", host, remotePort: Number(new URL(env.url).port) },
    tokenFile: await tokens.write("remote", env.readToken),
  };
  const registry = new EnvironmentRegistry({
    environments: [config],
    requiredScopes: READ_SCOPES,
    ssh: { sshPath: fakeSsh.path },
  });
  return registries.keep(registry);
}

describe("environment over an ssh tunnel", () => {
  it("starts the tunnel on first use only and verifies the environment through it", async () => {
    const registry = await sshRegistry();
    const handle = registry.resolve("remote");
    expect(handle.transportLabel).toBe("ssh devbox");
    expect(handle.tunnelPid).toBeUndefined();
    const env = await registry.connect("remote");
    expect(env.environmentId).toBe("env-remote");
    expect(handle.tunnelPid).toBeTypeOf("number");
    expect((await env.http.getShell()).schemaVersion).toBe(2);
    const rpc = await env.rpc();
    await rpc.probe();
  });

  it("drops the connection when the ssh child dies and reconnects through a new tunnel", async () => {
    const registry = await sshRegistry();
    const handle = registry.resolve("remote");
    const first = await registry.connect("remote");
    const firstPid = handle.tunnelPid ?? -1;
    process.kill(firstPid, "SIGKILL");
    await expect(first.http.getShell()).rejects.toMatchObject({ code: "unavailable" });
    const second = await registry.connect("remote");
    expect(second).not.toBe(first);
    expect(handle.tunnelPid).not.toBe(firstPid);
    expect((await second.http.getShell()).schemaVersion).toBe(2);
  });

  it("kills the ssh child when the registry closes", async () => {
    const registry = await sshRegistry();
    await registry.connect("remote");
    const pid = registry.resolve("remote").tunnelPid ?? -1;
    expect(isAlive(pid)).toBe(true);
    await registry.close();
    expect(isAlive(pid)).toBe(false);
  });

  it("reports a tunnel that cannot start with ssh's last stderr line", async () => {
    const registry = await sshRegistry("fail-devbox");
    await expect(registry.connect("remote")).rejects.toMatchObject({
      code: "tunnel_failed",
      message: expect.stringContaining("port 22: Connection refused"),
    });
  });
});
