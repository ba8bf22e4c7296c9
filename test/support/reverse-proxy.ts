/**
 * Real reverse proxies in front of `serve --http`: Debian's nginx and Caddy, started on a loopback
 * port with a config written to a temporary directory. The configs are the README's recipes, with
 * only the site-specific parts replaced (name, TLS, ports), so the recipes cannot drift from what
 * the tests prove. Both the OAuth sign-in tests and the approval-from-afar loop stand behind them.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));

/** The fenced block after `<!-- recipe:NAME -->` in the README. */
export async function readmeRecipe(name: "nginx" | "caddy"): Promise<string> {
  const text = await readFile(README, "utf8");
  const marker = text.indexOf(`<!-- recipe:${name} -->`);
  if (marker < 0) throw new Error(`README has no recipe:${name}`);
  const open = text.indexOf("```", marker);
  const start = text.indexOf("\n", open) + 1;
  return text.slice(start, text.indexOf("```", start));
}

/** The binary's path, or undefined when it is not installed (the test then says so and skips). */
export function proxyBinary(name: "nginx" | "caddy"): string | undefined {
  for (const candidate of [`/usr/sbin/${name}`, `/usr/bin/${name}`])
    if (existsSync(candidate)) return candidate;
  const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
  return found === "" ? undefined : found;
}

export interface RunningProxy {
  stderr(): string;
  /** What the proxy wrote to its access log so far (nginx: the http block's log, on by default). */
  accessLog(): Promise<string>;
  close(): Promise<void>;
}

/** nginx with a server block (already adapted to this machine), in the foreground. */
export async function startNginx(serverBlock: string, listenPort: number): Promise<RunningProxy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-nginx-"));
  const temps = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((kind) => `${kind}_temp_path ${dir}/${kind};`)
    .join("\n  ");
  await writeFile(
    path.join(dir, "nginx.conf"),
    `daemon off;\nmaster_process off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log info;\nevents { worker_connections 64; }\nhttp {\n  access_log ${dir}/access.log;\n  ${temps}\n${serverBlock}\n}\n`,
  );
  const child = spawn(
    proxyBinary("nginx") as string,
    ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", `${dir}/error.log`],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  return running(child, listenPort, dir);
}

/** Caddy with a Caddyfile site (already adapted), no admin endpoint, its state in the temp dir. */
export async function startCaddy(site: string, listenPort: number): Promise<RunningProxy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "t3c-caddy-"));
  const caddyfile = path.join(dir, "Caddyfile");
  await writeFile(
    caddyfile,
    `{\n\tadmin off\n\tauto_https off\n\tstorage file_system ${dir}/data\n}\n${site}`,
  );
  const child = spawn(
    proxyBinary("caddy") as string,
    ["run", "--config", caddyfile, "--adapter", "caddyfile"],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: `${dir}/data`, XDG_CONFIG_HOME: `${dir}/config` },
    },
  );
  return running(child, listenPort, dir);
}

async function running(child: ChildProcess, port: number, dir: string): Promise<RunningProxy> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<never>((_resolve, reject) =>
    child.once("exit", (code) => reject(new Error(`the proxy exited ${code}: ${stderr}`))),
  );
  // Up when its port takes a connection (neither proxy says so on its own in this mode).
  await Promise.race([acceptsConnections(port), exited]);
  return {
    stderr: () => stderr,
    accessLog: () => readFile(path.join(dir, "access.log"), "utf8").catch(() => ""),
    async close() {
      exited.catch(() => {});
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await gone;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function acceptsConnections(port: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The README's nginx server block for this machine: plain http on `listenPort`, the upstream port. */
export function nginxForTest(recipe: string, listenPort: number, upstreamPort: number): string {
  return recipe
    .replace(/listen 443 ssl;/, `listen 127.0.0.1:${listenPort};`)
    .replace(/^\s*ssl_certificate.*$/gm, "")
    .replace(/server_name mcp\.example\.com;/, "server_name localhost;")
    .replace(/127\.0\.0\.1:8000/g, `127.0.0.1:${upstreamPort}`);
}

/** The README's Caddy site for this machine: plain http on `listenPort`, the upstream port. */
export function caddyForTest(recipe: string, listenPort: number, upstreamPort: number): string {
  return recipe
    .replace(/^mcp\.example\.com/m, `http://localhost:${listenPort}`)
    .replace(/127\.0\.0\.1:8000/g, `127.0.0.1:${upstreamPort}`);
}

/** A proxy in front of one upstream, as the tests that only need its public origin see it. */
export interface ReverseProxy {
  /** `http://localhost:<port>`: what clients and browsers use (the OAuth issuer). */
  readonly origin: string;
  close(): Promise<void>;
}

/** The README's Caddy recipe on loopback `port`, forwarding to `127.0.0.1:<upstreamPort>`. */
export async function caddyFromReadme(port: number, upstreamPort: number): Promise<ReverseProxy> {
  requireInstalled("caddy");
  const site = caddyForTest(await readmeRecipe("caddy"), port, upstreamPort);
  return fronting(await startCaddy(site, port), port);
}

/** The README's nginx recipe on loopback `port`, forwarding to `127.0.0.1:<upstreamPort>`. */
export async function nginxFromReadme(port: number, upstreamPort: number): Promise<ReverseProxy> {
  requireInstalled("nginx");
  const block = nginxForTest(await readmeRecipe("nginx"), port, upstreamPort);
  return fronting(await startNginx(block, port), port);
}

/** Both README recipes, for the tests that run the same attack behind each (`describe.each`). */
export const README_PROXIES = [
  { name: "Caddy", start: caddyFromReadme },
  { name: "nginx", start: nginxFromReadme },
] as const;

/** A test behind a README recipe fails, naming what is missing, where the proxy is not installed. */
function requireInstalled(name: "nginx" | "caddy"): void {
  if (proxyBinary(name) === undefined) throw new Error(`${name} is not installed (.ci/run installs it)`);
}

function fronting(proxy: RunningProxy, port: number): ReverseProxy {
  return { origin: `http://localhost:${port}`, close: () => proxy.close() };
}
