/**
 * `t3-connector-write bridge`: a stdio MCP server that relays to the gate. It reads the write
 * config for the gate's port and state directory only: never a token file, never the journal.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { loadWriteConfig } from "@t3-connector/core/config";
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
  /** Resolves when the client closes stdin (or `close` is called). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export async function runBridge(options: RunBridgeOptions = {}): Promise<RunningBridge> {
  const relay = options.relay ?? (await relayFromConfig(options));
  const server = createBridgeServer({ relay, ...(options.log === undefined ? {} : { log: options.log }) });
  const transport = new StdioServerTransport(
    options.stdin as ConstructorParameters<typeof StdioServerTransport>[0],
    options.stdout as ConstructorParameters<typeof StdioServerTransport>[1],
  );
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  server.server.onclose = () => resolveClosed();
  const input = (options.stdin ?? process.stdin) as NodeJS.ReadableStream;
  input.once("end", () => void server.close());
  await server.connect(transport);
  return {
    closed,
    async close() {
      await server.close();
    },
  };
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
