/**
 * A real reverse proxy on loopback where a user would put one in front of `serve --http`: Debian's
 * Caddy (`caddy`, installed by `.ci/run`), one site `http://localhost:<port>` forwarding everything
 * to one upstream with the Host kept, as the README's recipe says. No admin endpoint, no automatic
 * HTTPS, and a private HOME, so parallel tests never share Caddy's state or its admin port.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export const CADDY_PATH = "/usr/bin/caddy";

export interface ReverseProxy {
  /** `http://localhost:<port>`: what clients and browsers use (the OAuth issuer). */
  readonly origin: string;
  close(): Promise<void>;
}

/** Starts Caddy on `port` (from freePort) forwarding to `127.0.0.1:<upstreamPort>`; resolves once it serves. */
export async function startCaddy(port: number, upstreamPort: number): Promise<ReverseProxy> {
  const home = await mkdtemp(path.join(os.tmpdir(), "t3c-caddy-"));
  const caddyfile = path.join(home, "Caddyfile");
  await writeFile(
    caddyfile,
    [
      "{",
      "  admin off",
      "  auto_https off",
      "}",
      `http://localhost:${port} {`,
      "  bind 127.0.0.1",
      `  reverse_proxy 127.0.0.1:${upstreamPort}`,
      "}",
      "",
    ].join("\n"),
  );
  const child = spawn(CADDY_PATH, ["run", "--config", caddyfile, "--adapter", "caddyfile"], {
    env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    await servesOrExits(child);
  } catch (error) {
    child.kill("SIGKILL");
    await rm(home, { recursive: true, force: true });
    throw error;
  }
  return {
    origin: `http://localhost:${port}`,
    async close() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Caddy says on stderr when its configuration serves; an exit before that fails with its last words. */
function servesOrExits(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let said = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (text: string) => {
      said += text;
      if (said.includes("serving initial configuration")) resolve();
    });
    child.once("error", (error) =>
      reject(
        new Error(`Caddy could not start from ${CADDY_PATH} (install the Debian package "caddy"): ${error}`),
      ),
    );
    child.once("exit", (code) =>
      reject(new Error(`Caddy exited (${code}) before serving: ${said.slice(-2000)}`)),
    );
  });
}

export const NGINX_PATH = "/usr/sbin/nginx";

/**
 * Starts Debian's nginx on `port` forwarding to `127.0.0.1:<upstreamPort>` with the README's
 * location block (Host passed on, no buffering), in the foreground, one process, every file in a
 * private directory; resolves once the port answers.
 */
export async function startNginx(port: number, upstreamPort: number): Promise<ReverseProxy> {
  const home = await mkdtemp(path.join(os.tmpdir(), "t3c-nginx-"));
  const conf = path.join(home, "nginx.conf");
  await writeFile(
    conf,
    [
      "daemon off;",
      "master_process off;",
      `pid ${home}/nginx.pid;`,
      "error_log stderr notice;",
      "events { worker_connections 64; }",
      "http {",
      `  access_log off;`,
      `  client_body_temp_path ${home}/body;`,
      `  proxy_temp_path ${home}/proxy;`,
      `  fastcgi_temp_path ${home}/fastcgi;`,
      `  uwsgi_temp_path ${home}/uwsgi;`,
      `  scgi_temp_path ${home}/scgi;`,
      "  server {",
      `    listen 127.0.0.1:${port};`,
      "    server_name localhost;",
      "    location / {",
      `      proxy_pass http://127.0.0.1:${upstreamPort};`,
      "      proxy_set_header Host $http_host;",
      "      proxy_buffering off;",
      "    }",
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  const child = spawn(NGINX_PATH, ["-c", conf, "-p", `${home}/`], { stdio: ["ignore", "ignore", "pipe"] });
  let said = "";
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    said += text;
  });
  try {
    await nginxServes(child, () => said);
  } catch (error) {
    child.kill("SIGKILL");
    await rm(home, { recursive: true, force: true });
    throw error;
  }
  return {
    origin: `http://localhost:${port}`,
    async close() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * nginx says (at notice level, on stderr) which event method it uses once its cycle is set up,
 * after the listening socket was opened: that line is the sign it serves; an exit fails.
 */
function nginxServes(child: ChildProcess, said: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", () => {
      if (said().includes("event method")) resolve();
    });
    child.once("error", (error) =>
      reject(
        new Error(`nginx could not start from ${NGINX_PATH} (install the Debian package "nginx"): ${error}`),
      ),
    );
    child.once("exit", (code) => reject(new Error(`nginx exited (${code}) before serving: ${said()}`)));
  });
}
