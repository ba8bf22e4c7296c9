import { once } from "node:events";
import { connect, createServer, type Server } from "node:net";
import { createFakeSsh, type FakeSsh, isAlive } from "@t3-connector/test-support/fake-ssh";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseReadConfig } from "../../src/config/index.js";
import {
  killSpawnedTunnels,
  SshTunnel,
  spawnedTunnelCount,
  sshTunnelArgs,
} from "../../src/environments/index.js";
import { ConnectorError } from "../../src/errors.js";
import { caughtConnectorError } from "../support/caught-connector-error.js";

let fakeSsh: FakeSsh;
let echo: Server;
let echoPort: number;
const tunnels: SshTunnel[] = [];

beforeAll(async () => {
  fakeSsh = await createFakeSsh();
  echo = createServer((socket) => socket.pipe(socket));
  echo.listen(0, "127.0.0.1");
  await once(echo, "listening");
  const address = echo.address();
  if (address === null || typeof address === "string") throw new Error("no echo port");
  echoPort = address.port;
});

afterEach(async () => {
  await Promise.all(tunnels.splice(0).map((tunnel) => tunnel.close()));
});

afterAll(async () => {
  await new Promise<void>((resolve) => echo.close(() => resolve()));
  await fakeSsh.remove();
});

function tunnel(host: string, options: { readyTimeoutMs?: number; sshPath?: string } = {}): SshTunnel {
  const created = new SshTunnel({ host, remotePort: echoPort, sshPath: fakeSsh.path, ...options });
  tunnels.push(created);
  return created;
}

async function roundTrip(port: number, text: string): Promise<string> {
  const socket = connect({ host: "127.0.0.1", port });
  await once(socket, "connect");
  socket.write(text);
  const [data] = (await once(socket, "data")) as [Buffer];
  socket.destroy();
  return data.toString("utf8");
}

describe("ssh tunnel", () => {
  it("runs ssh with the safe options and waits until the forwarded port accepts connections", async () => {
    const slow = tunnel("slow-devbox");
    const port = await slow.open();
    expect(await roundTrip(port, "through the tunnel")).toBe("through the tunnel");
    const pid = slow.pid;
    expect(pid).toBeTypeOf("number");
    const args = (await fakeSsh.spawned()).get(pid ?? -1);
    expect(args).toEqual(sshTunnelArgs("slow-devbox", port, echoPort));
    expect(args?.join(" ")).toBe(
      "-o BatchMode=yes -o ConnectTimeout=8 -o ExitOnForwardFailure=yes -o ServerAliveInterval=15 " +
        "-o ServerAliveCountMax=3 -o ControlMaster=no -o ControlPath=none -o ForwardAgent=no " +
        `-N -L 127.0.0.1:${port}:127.0.0.1:${echoPort} slow-devbox`,
    );
  });

  it("shares one ssh child between concurrent opens and reuses it while alive", async () => {
    const shared = tunnel("devbox");
    const [a, b] = await Promise.all([shared.open(), shared.open()]);
    expect(a).toBe(b);
    const pid = shared.pid;
    expect(await shared.open()).toBe(a);
    expect(shared.pid).toBe(pid);
  });

  it("starts a new ssh child after the previous one died", async () => {
    const recreated = tunnel("devbox");
    await recreated.open();
    const firstPid = recreated.pid ?? -1;
    const exited = new Promise<void>((resolve) => recreated.onExit(resolve));
    process.kill(firstPid, "SIGKILL");
    await exited;
    expect(recreated.pid).toBeUndefined();
    const port = await recreated.open();
    expect(recreated.pid).not.toBe(firstPid);
    expect(await roundTrip(port, "again")).toBe("again");
  });

  it("kills its ssh child on close", async () => {
    const closing = tunnel("devbox");
    await closing.open();
    const pid = closing.pid ?? -1;
    expect(isAlive(pid)).toBe(true);
    await closing.close();
    expect(isAlive(pid)).toBe(false);
    await expect(closing.open()).rejects.toMatchObject({ code: "tunnel_failed" });
  });

  it("reports the last line ssh printed on stderr when it fails", async () => {
    const error = await caughtConnectorError(tunnel("fail-devbox").open());
    expect(error.code).toBe("tunnel_failed");
    expect(error.message).toContain("ssh: connect to host fail-devbox port 22: Connection refused");
    expect(error.message).not.toContain("first line that must not be reported");
    expect(error.details?.exitCode).toBe(255);
  });

  it("starts ssh again on a new local port when the one it picked was taken before ssh bound it", async () => {
    const retried = tunnel("busyonce-devbox");
    const before = new Set((await fakeSsh.spawned()).keys());
    const port = await retried.open();
    expect(await roundTrip(port, "second port")).toBe("second port");
    const started = [...(await fakeSsh.spawned()).entries()].filter(([pid]) => !before.has(pid));
    expect(started).toHaveLength(2);
    const [first, second] = started.map(([pid, args]) => ({ pid, forward: args.at(-2) }));
    expect(isAlive(first?.pid ?? -1)).toBe(false);
    expect(second?.pid).toBe(retried.pid);
    expect(second?.forward).toBe(`127.0.0.1:${port}:127.0.0.1:${echoPort}`);
  });

  it("gives up with ssh's own words after three local ports were taken", async () => {
    const before = new Set((await fakeSsh.spawned()).keys());
    const error = await caughtConnectorError(tunnel("busy-devbox").open());
    expect(error.code).toBe("tunnel_failed");
    expect(error.message).toContain("ssh exited with code 255: Could not request local forwarding.");
    expect(error.details?.lastStderrLine).toBe("Could not request local forwarding.");
    const started = [...(await fakeSsh.spawned()).keys()].filter((pid) => !before.has(pid));
    expect(started).toHaveLength(3);
  });

  it("does not retry a failure that is not about the local port", async () => {
    const before = new Set((await fakeSsh.spawned()).keys());
    await expect(tunnel("fail-devbox").open()).rejects.toMatchObject({ code: "tunnel_failed" });
    const started = [...(await fakeSsh.spawned()).keys()].filter((pid) => !before.has(pid));
    expect(started).toHaveLength(1);
  });

  it("gives up and kills ssh when the port never becomes ready", async () => {
    const never = tunnel("never-devbox", { readyTimeoutMs: 1_000 });
    const before = new Set((await fakeSsh.spawned()).keys());
    const error = await caughtConnectorError(never.open());
    expect(error.code).toBe("tunnel_failed");
    expect(error.message).toContain("did not become ready within 1000 ms: fake ssh: waiting forever");
    const started = [...(await fakeSsh.spawned()).keys()].filter((pid) => !before.has(pid));
    expect(started).toHaveLength(1);
    expect(isAlive(started[0] ?? -1)).toBe(false);
  });

  it("reports an ssh executable that cannot be started", async () => {
    const error = await caughtConnectorError(tunnel("devbox", { sshPath: "/nonexistent/ssh" }).open());
    expect(error.code).toBe("tunnel_failed");
    expect(error.message).toContain("could not start /nonexistent/ssh (ENOENT)");
  });

  it.each(["-oProxyCommand=touch /tmp/pwned", "-p", "user@host", "host name", "host;id", "", "h\nx"])(
    "refuses the ssh host %j before running anything",
    (host) => {
      expect(() => new SshTunnel({ host, remotePort: 1, sshPath: fakeSsh.path })).toThrow(ConnectorError);
      expect(() =>
        parseReadConfig(
          {
            environments: {
              a: { environmentId: "e", ssh: { host }, tokenFile: "/t", allowedProjects: ["p"] },
            },
          },
          { path: "/c", homeDir: "/h" },
        ),
      ).toThrow(/ssh\.host/);
    },
  );

  it.each(["SIGINT", "SIGTERM"] as const)(
    "kills its ssh children on %s and leaves the signal to the process's own handler",
    async (signal) => {
      const signalled = tunnel("devbox");
      await signalled.open();
      const pid = signalled.pid ?? -1;
      const exited = new Promise<void>((resolve) => signalled.onExit(resolve));
      // With a handler of its own the process decides what the signal means; without one the hook
      // would re-raise it to keep the default (exit), which a test worker cannot survive.
      const ownHandler = vi.fn();
      process.on(signal, ownHandler);
      try {
        process.emit(signal, signal);
      } finally {
        process.off(signal, ownHandler);
      }
      await exited;
      expect(ownHandler).toHaveBeenCalledTimes(1);
      expect(isAlive(pid)).toBe(false);
      expect(spawnedTunnelCount()).toBe(0);
    },
  );

  it("kills every spawned child from the process-exit hook", async () => {
    const a = tunnel("devbox");
    const b = tunnel("devbox");
    await Promise.all([a.open(), b.open()]);
    const pids = [a.pid ?? -1, b.pid ?? -1];
    const exits = Promise.all([a, b].map((t) => new Promise<void>((resolve) => t.onExit(resolve))));
    expect(spawnedTunnelCount()).toBeGreaterThanOrEqual(2);
    killSpawnedTunnels();
    await exits;
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });
});
