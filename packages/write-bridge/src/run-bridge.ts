/**
 * `t3-connector-write bridge`: a stdio MCP server that relays to the gate. It reads the write
 * config for the gate's port and state directory only: never a token file, never the journal.
 */
import { randomUUID } from "node:crypto";
import { loadWriteConfig } from "@t3-connector/core/config";
import { describeTooLarge, type StdioEnd, serveToolsOnStdio } from "@t3-connector/mcp-tools";
import { createRelayClient, type RelayClient } from "./relay-client.js";
import { createBridgeServer } from "./server.js";

export interface RunBridgeOptions {
  /** Write config path; default `T3_CONNECTOR_WRITE_CONFIG` or `~/.config/t3-connector/write.json`. */
  readonly configPath?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly homeDir?: string;
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
  readonly log?: (line: string) => void;
  /** Tests: a relay client other than the write config's gate. */
  readonly relay?: RelayClient;
}

export interface RunningBridge {
  /**
   * Resolves when the client closes stdin (or `close` is called), or when a message over the
   * stdio limit ended the session (`message_too_large`: the CLI then exits 1; the reason is logged).
   */
  readonly closed: Promise<StdioEnd>;
  close(): Promise<void>;
}

export async function runBridge(options: RunBridgeOptions = {}): Promise<RunningBridge> {
  const relay = options.relay ?? (await relayFromConfig(options));
  const log = options.log ?? logToStderr;
  // Every connection's server (and a 2026-07-28 client's discovery probe) speaks for one process.
  const bridgeId = randomUUID();
  const session = serveToolsOnStdio(() => createBridgeServer({ relay, bridgeId, log }), {
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.stdout === undefined ? {} : { stdout: options.stdout }),
    log,
  });
  const input = (options.stdin ?? process.stdin) as NodeJS.ReadableStream;
  input.once("end", () => void session.close());
  const closed = session.ended.then((end) => {
    if (end.kind === "message_too_large") log(describeTooLarge(end.limitBytes));
    return end;
  });
  return {
    closed,
    close: () => session.close(),
  };
}

function logToStderr(line: string): void {
  process.stderr.write(`t3-connector-write bridge: ${line}\n`);
}

async function relayFromConfig(options: RunBridgeOptions): Promise<RelayClient> {
  const context = {
    ...(options.configPath === undefined ? {} : { path: options.configPath }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
  };
  const config = await loadWriteConfig(context);
  return createRelayClient({ port: config.port, stateDir: config.stateDir });
}
