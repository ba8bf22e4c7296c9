import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A stand-in `ssh` executable (there is no sshd on the test machines). It checks the arguments,
 * records them, and forwards `-L 127.0.0.1:<local>:127.0.0.1:<remote>` with plain TCP, so that
 * the "remote" port is any loopback server (the simulator). Host names script its behaviour:
 *   fail-*   prints two stderr lines and exits 255 (like an unreachable host)
 *   slow-*   waits 300 ms before listening
 *   never-*  prints a banner and never listens
 *   busy-*   finds its local port taken, as OpenSSH says it with ExitOnForwardFailure, exits 255
 *   busyonce-* finds it taken the first time it runs for that host, then forwards
 */
const SCRIPT = String.raw`#!/usr/bin/env node
const net = require("node:net");
const fs = require("node:fs");
const path = require("node:path");
const args = process.argv.slice(2);
const expected = ["-o","BatchMode=yes","-o","ConnectTimeout=8","-o","ExitOnForwardFailure=yes","-o","ServerAliveInterval=15",
  "-o","ServerAliveCountMax=3","-o","ControlMaster=no","-o","ControlPath=none","-o","ForwardAgent=no","-N","-L"];
fs.writeFileSync(path.join(__dirname, "spawned-" + process.pid + ".json"), JSON.stringify(args));
const ok = args.length === expected.length + 2 && expected.every((a, i) => args[i] === a);
const spec = ok ? /^127\.0\.0\.1:(\d+):127\.0\.0\.1:(\d+)$/.exec(args[expected.length]) : null;
const host = args[args.length - 1];
if (!spec || host.startsWith("-")) { process.stderr.write("fake ssh: unexpected arguments\n"); process.exit(2); }
const localPort = Number(spec[1]);
const remotePort = Number(spec[2]);
if (host.startsWith("fail-")) {
  process.stderr.write("Warning: first line that must not be reported\n");
  process.stderr.write("ssh: connect to host " + host + " port 22: Connection refused\n");
  process.exit(255);
}
if (host.startsWith("never-")) { process.stderr.write("fake ssh: waiting forever\n"); setInterval(() => {}, 1000); return; }
// OpenSSH's own words when the local end of -L cannot be bound (ExitOnForwardFailure=yes).
const portTaken = () => {
  process.stderr.write("bind [127.0.0.1]:" + localPort + ": Address already in use\r\n");
  process.stderr.write("channel_setup_fwd_listener_tcpip: cannot listen to port: " + localPort + "\r\n");
  process.stderr.write("Could not request local forwarding.\r\n");
  process.exit(255);
};
if (host.startsWith("busy-")) portTaken();
if (host.startsWith("busyonce-")) {
  const marker = path.join(__dirname, "busy-" + host);
  if (!fs.existsSync(marker)) { fs.writeFileSync(marker, ""); portTaken(); }
}
const listen = () => {
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: "127.0.0.1", port: remotePort });
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  server.on("error", () => portTaken());
  server.listen(localPort, "127.0.0.1");
};
setTimeout(listen, host.startsWith("slow-") ? 300 : 0);
`;

export interface FakeSsh {
  /** Path of the executable to inject as `sshPath`. */
  path: string;
  /** The argument lists of every process started so far, by pid. */
  spawned(): Promise<Map<number, string[]>>;
  remove(): Promise<void>;
}

export async function createFakeSsh(): Promise<FakeSsh> {
  const dir = await mkdtemp(join(tmpdir(), "t3c-fake-ssh-"));
  const path = join(dir, "ssh");
  await writeFile(path, SCRIPT);
  await chmod(path, 0o755);
  return {
    path,
    async spawned() {
      const found = new Map<number, string[]>();
      for (const name of await readdir(dir)) {
        const match = /^spawned-(\d+)\.json$/.exec(name);
        if (match?.[1]) found.set(Number(match[1]), JSON.parse(await readFile(join(dir, name), "utf8")));
      }
      return found;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
