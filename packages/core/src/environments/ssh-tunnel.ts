import { type ChildProcess, spawn as nodeSpawn, type SpawnOptions } from "node:child_process";
import { once } from "node:events";
import { connect, createServer } from "node:net";
import { type Clock, systemClock } from "../clock.js";
import { isSafeSshHost } from "../config/schema-common.js";
import { ConnectorError } from "../errors.js";
import { trackChild } from "./spawned-children.js";

export type SpawnFunction = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export interface SshTunnelOptions {
  host: string;
  remotePort: number;
  /** The ssh executable; injected so tests can run a stand-in. Default `ssh` from PATH. */
  sshPath?: string;
  spawn?: SpawnFunction;
  /** How long to wait for the forwarded port to accept a connection. Default 15 s. */
  readyTimeoutMs?: number;
  /** Pause between readiness probes. Default 100 ms. */
  probeIntervalMs?: number;
  clock?: Clock;
}

/** Options that keep ssh non-interactive, unshared and unable to forward anything else. */
const SSH_OPTIONS = [
  "BatchMode=yes",
  "ConnectTimeout=8",
  "ExitOnForwardFailure=yes",
  "ServerAliveInterval=15",
  "ServerAliveCountMax=3",
  "ControlMaster=no",
  "ControlPath=none",
  "ForwardAgent=no",
];
const STDERR_TAIL_CHARS = 400;
/**
 * Local ports tried per start. The port is free when we pick it, but ssh binds it only after it has
 * connected and authenticated, and meanwhile another connection may be given the same port.
 */
const LOCAL_PORT_ATTEMPTS = 3;
/** What ssh prints, with ExitOnForwardFailure, when the local end of the forward cannot be bound. */
const LOCAL_PORT_TAKEN = /Could not request local forwarding|cannot listen to port|Address already in use/;
const KILL_GRACE_MS = 2_000;
/**
 * How long, after ssh exited, its last stderr lines may still be on their way through the pipe
 * (Node reports the exit before the pipe is read to its end). Bounded: a ProxyCommand child that
 * outlives a killed ssh may hold the pipe open.
 */
const STDERR_DRAIN_MS = 500;

export function sshTunnelArgs(host: string, localPort: number, remotePort: number): string[] {
  return [
    ...SSH_OPTIONS.flatMap((option) => ["-o", option]),
    "-N",
    "-L",
    `127.0.0.1:${localPort}:127.0.0.1:${remotePort}`,
    host,
  ];
}

/** A port nobody listens on right now, found by letting the kernel pick one. */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port assigned");
  return address.port;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function lastLine(tail: string): string | undefined {
  const lines = tail
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines.at(-1);
}

/** One running ssh child and what it said. */
class TunnelProcess {
  stderrTail = "";
  exited = false;
  exitCode: number | null = null;
  spawnError: Error | undefined;
  readonly exit: Promise<void>;
  readonly #stderrClosed: Promise<void>;

  constructor(
    readonly child: ChildProcess,
    readonly localPort: number,
  ) {
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    const stderr = child.stderr;
    this.#stderrClosed = stderr ? new Promise((resolve) => stderr.once("close", resolve)) : Promise.resolve();
    this.exit = new Promise((resolve) => {
      child.once("error", (error) => {
        this.spawnError = error;
        this.exited = true;
        resolve();
      });
      child.once("exit", (code) => {
        this.exitCode = code;
        this.exited = true;
        resolve();
      });
    });
  }

  get lastStderrLine(): string | undefined {
    return lastLine(this.stderrTail);
  }

  /** Waits, briefly, until what ssh wrote to stderr before exiting has been read. */
  async stderrDrained(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#stderrClosed,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STDERR_DRAIN_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }

  async kill(): Promise<void> {
    if (this.exited) return;
    this.child.kill("SIGTERM");
    const grace = setTimeout(() => this.child.kill("SIGKILL"), KILL_GRACE_MS);
    await this.exit;
    clearTimeout(grace);
  }
}

/**
 * An `ssh -N -L` port forward to a T3 server's loopback port. Started on first use, started again
 * when the child has exited, killed on `close()` and when this process exits.
 */
export class SshTunnel {
  readonly host: string;
  readonly remotePort: number;
  private readonly sshPath: string;
  private readonly spawn: SpawnFunction;
  private readonly readyTimeoutMs: number;
  private readonly probeIntervalMs: number;
  private readonly clock: Clock;
  private current: TunnelProcess | undefined;
  private starting: Promise<TunnelProcess> | undefined;
  private closed = false;
  private readonly exitListeners = new Set<() => void>();

  constructor(options: SshTunnelOptions) {
    if (!isSafeSshHost(options.host)) {
      throw new ConnectorError("tunnel_failed", "refusing an ssh host that is not a plain host name");
    }
    this.host = options.host;
    this.remotePort = options.remotePort;
    this.sshPath = options.sshPath ?? "ssh";
    this.spawn = options.spawn ?? (nodeSpawn as SpawnFunction);
    this.readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
    this.probeIntervalMs = options.probeIntervalMs ?? 100;
    this.clock = options.clock ?? systemClock;
  }

  /** The pid of the live ssh child, if any. */
  get pid(): number | undefined {
    return this.current && !this.current.exited ? this.current.child.pid : undefined;
  }

  /** Called when the child of the ready tunnel exits on its own (not after `discard`/`close`). */
  onExit(listener: () => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** Returns the local port of a ready tunnel, starting ssh when none is running. */
  async open(): Promise<number> {
    if (this.closed) throw new ConnectorError("tunnel_failed", `SSH tunnel to ${this.host} is closed`);
    if (this.current && !this.current.exited) return this.current.localPort;
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return (await this.starting).localPort;
  }

  /** Kills the child (if any) so that the next `open()` starts a fresh one. */
  async discard(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    await current?.kill();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.starting?.catch(() => undefined);
    await this.discard();
    this.exitListeners.clear();
  }

  private async start(): Promise<TunnelProcess> {
    for (let attempt = 1; ; attempt += 1) {
      const tunnel = this.launch(await findFreePort());
      try {
        await this.waitReady(tunnel);
      } catch (error) {
        await tunnel.kill();
        const portTaken = tunnel.exited && LOCAL_PORT_TAKEN.test(tunnel.stderrTail);
        if (portTaken && attempt < LOCAL_PORT_ATTEMPTS && !this.closed) continue;
        throw error;
      }
      if (this.closed) {
        await tunnel.kill();
        throw new ConnectorError("tunnel_failed", `SSH tunnel to ${this.host} is closed`);
      }
      this.current = tunnel;
      void tunnel.exit.then(() => {
        // A discarded child was already replaced (or is being replaced): its exit is expected.
        if (this.current !== tunnel) return;
        this.current = undefined;
        for (const listener of this.exitListeners) listener();
      });
      return tunnel;
    }
  }

  /** Spawns one ssh child forwarding `localPort`. */
  private launch(localPort: number): TunnelProcess {
    let child: ChildProcess;
    try {
      child = this.spawn(this.sshPath, sshTunnelArgs(this.host, localPort, this.remotePort), {
        // stdout of our servers is the MCP protocol: ssh must never write there.
        stdio: ["ignore", "ignore", "pipe"],
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      throw new ConnectorError(
        "tunnel_failed",
        `SSH tunnel to ${this.host} could not start ${this.sshPath} (${code})`,
        {
          details: { host: this.host, exitCode: null, lastStderrLine: null },
        },
      );
    }
    trackChild(child);
    return new TunnelProcess(child, localPort);
  }

  private async waitReady(tunnel: TunnelProcess): Promise<void> {
    const deadline = this.clock.monotonic() + this.readyTimeoutMs;
    while (!tunnel.exited && !this.closed) {
      if (await canConnect(tunnel.localPort)) {
        if (!tunnel.exited) return;
        break;
      }
      if (this.clock.monotonic() >= deadline) {
        throw this.failure(tunnel, `did not become ready within ${this.readyTimeoutMs} ms`);
      }
      await this.pause(tunnel);
    }
    if (this.closed && !tunnel.exited) throw this.failure(tunnel, "was closed before it became ready");
    if (tunnel.spawnError) {
      throw this.failure(
        tunnel,
        `could not start ${this.sshPath} (${(tunnel.spawnError as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
    await tunnel.stderrDrained();
    throw this.failure(tunnel, `ssh exited with code ${tunnel.exitCode ?? "none"}`);
  }

  /** Waits one probe interval, or less when the child exits first. */
  private async pause(tunnel: TunnelProcess): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.probeIntervalMs);
      }),
      tunnel.exit,
    ]);
    clearTimeout(timer);
  }

  private failure(tunnel: TunnelProcess, what: string): ConnectorError {
    const said = tunnel.lastStderrLine;
    return new ConnectorError(
      "tunnel_failed",
      `SSH tunnel to ${this.host} ${what}${said === undefined ? "" : `: ${said}`}`,
      { details: { host: this.host, exitCode: tunnel.exitCode, lastStderrLine: said ?? null } },
    );
  }
}
