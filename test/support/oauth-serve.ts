/**
 * `serveHttp` in this process with an `oauth` section (issuer `http://localhost:<port>`, loopback
 * redirects on) against the simulator, plus a loopback callback server that records what the
 * authorization server sends back, as a native client's would.
 */

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import {
  type HttpReadyLine,
  readToolDefinitions,
  type ServeHttpExtras,
  serveHttp,
} from "@t3-connector/read-server";
import { type Simulator, startSimulator } from "@t3-connector/t3-sim";
import { captureStreams } from "@t3-connector/test-support/captured-io";
import { freePort } from "@t3-connector/test-support/free-port";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";

export interface OAuthServe {
  readonly issuer: string;
  readonly mcpUrl: string;
  readonly stateDir: string;
  /** The read config `serve` runs with (its `oauth` section names the state directory). */
  readonly configPath: string;
  readonly enrollmentCode: string;
  readonly ready: HttpReadyLine;
  readonly sim: Simulator;
  stderr(): string;
  close(): Promise<void>;
}

/**
 * `extras.env` joins the server's environment; without `T3_CONNECTOR_WRITE_CONFIG` there, the
 * server is told of one that does not exist, so it serves reads only whatever this machine's home
 * holds. An `oauth.issuer` given (a reverse proxy's origin) is where clients go.
 */
export async function startOAuthServe(
  oauth: Record<string, unknown> = {},
  extras: Pick<ServeHttpExtras, "oauthFetcher"> & {
    issuerPort?: number;
    listenPort?: number;
    env?: Record<string, string>;
    /** `--trusted-proxy`: the proxies whose X-Forwarded-For names the client. */
    trustedProxies?: readonly string[];
  } = {},
): Promise<OAuthServe> {
  const sim = await startSimulator({ environments: [{ alias: "beta", seed: "demo" }] });
  const config: SimConfig = await writeSimConfig(sim);
  // A state directory the caller names is the caller's to remove (a restart test reuses one).
  const ownStateDir = typeof oauth.stateDir !== "string";
  const stateDir = ownStateDir
    ? await mkdtemp(path.join(os.tmpdir(), "t3c-oauth-state-"))
    : (oauth.stateDir as string);
  if (ownStateDir) await rm(stateDir, { recursive: true });
  // Behind a proxy the issuer names the proxy's port, and the server listens on another.
  const port = extras.listenPort ?? (await freePort());
  const issuer =
    typeof oauth.issuer === "string" ? oauth.issuer : `http://localhost:${extras.issuerPort ?? port}`;
  const written = JSON.parse(await readFile(config.configPath, "utf8")) as Record<string, unknown>;
  written.oauth = { issuer, loopbackRedirects: true, ...oauth, stateDir };
  await writeFile(config.configPath, JSON.stringify(written), { mode: 0o600 });
  const streams = captureStreams({
    T3_CONNECTOR_CONFIG: config.configPath,
    T3_CONNECTOR_WRITE_CONFIG: path.join(os.tmpdir(), "t3c-oauth-no-write-config.json"),
    ...extras.env,
  });
  let stop: (signal: string) => void = () => {};
  const exitCode = serveHttp(
    streams.io,
    readToolDefinitions,
    {
      host: "127.0.0.1",
      port,
      allowedHosts: [],
      allowedOrigins: [],
      ...(extras.trustedProxies === undefined ? {} : { trustedProxies: extras.trustedProxies }),
    },
    {
      logLevel: "debug",
      stopSignal: new Promise((resolve) => (stop = resolve)),
      ...(extras.oauthFetcher === undefined ? {} : { oauthFetcher: extras.oauthFetcher }),
    },
  );
  const line = await Promise.race([
    streams.stdoutLine(),
    exitCode.then((code) => {
      throw new Error(`serveHttp exited ${code}: ${streams.stderr()}`);
    }),
  ]);
  const ready = JSON.parse(line) as HttpReadyLine;
  // A state directory with a passkey already enrolled prints no code.
  const enrollmentCode = /enrollment code \(one use\): (\S+)/.exec(streams.stderr())?.[1] ?? "";
  return {
    issuer,
    mcpUrl: `${issuer}/mcp`,
    stateDir,
    configPath: config.configPath,
    enrollmentCode,
    ready,
    sim,
    stderr: streams.stderr,
    async close() {
      stop("test end");
      await exitCode;
      await sim.close();
      await config.remove();
      if (ownStateDir) await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** A loopback callback: every request's query is recorded and answered 200. */
export interface CallbackServer {
  readonly url: string;
  /** Resolves with the next callback's query parameters. */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const waiting: Array<(query: URLSearchParams) => void> = [];
  const arrived: URLSearchParams[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    // The browser also asks for /favicon.ico: only the callback path counts.
    if (url.pathname !== "/callback") {
      response.writeHead(404).end();
      return;
    }
    const query = url.searchParams;
    const waiter = waiting.shift();
    if (waiter === undefined) arrived.push(query);
    else waiter(query);
    response.writeHead(200, { "Content-Type": "text/plain" }).end("You may close this tab.");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const ready = arrived.shift();
      return ready !== undefined ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
