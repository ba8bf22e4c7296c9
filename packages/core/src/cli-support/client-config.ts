import { ConnectorError } from "../errors.js";

/**
 * The configuration snippet each MCP client needs to start one of our stdio servers, with this
 * machine's absolute paths (clients start servers without a shell, a PATH or a working directory
 * we control). docs/clients.md explains each one; `client-config <client>` prints it.
 */
export const CLIENT_NAMES = [
  "chatgpt",
  "claude-desktop",
  "claude-code",
  "cursor",
  "vscode",
  "inspector",
] as const;
export type ClientName = (typeof CLIENT_NAMES)[number];

export interface StdioServerLaunch {
  /** The key clients show, e.g. `t3-connector` or `t3-connector-write`. */
  name: string;
  /** Absolute path of node. */
  node: string;
  /** Absolute path of the bin script. */
  bin: string;
  /** Arguments after the bin, e.g. `["serve"]`. */
  args: string[];
  /** Environment the server needs, e.g. the config path; absolute paths. */
  env: Record<string, string>;
}

export function isClientName(value: string): value is ClientName {
  return (CLIENT_NAMES as readonly string[]).includes(value);
}

/** The snippet for `client`, as the text to paste (JSON, YAML or a shell command). */
export function clientConfigSnippet(client: string, launch: StdioServerLaunch): string {
  if (!isClientName(client)) {
    throw new ConnectorError(
      "invalid_input",
      `unknown client "${client}"; one of ${CLIENT_NAMES.join(", ")} (docs/clients.md explains each)`,
    );
  }
  const args = [launch.bin, ...launch.args];
  const stdio = { command: launch.node, args, env: launch.env };
  switch (client) {
    case "claude-desktop":
    case "cursor":
      return `${JSON.stringify({ mcpServers: { [launch.name]: stdio } }, null, 2)}\n`;
    case "vscode":
      return `${JSON.stringify({ servers: { [launch.name]: { type: "stdio", ...stdio } } }, null, 2)}\n`;
    case "claude-code":
      return `${[
        "claude mcp add",
        launch.name,
        ...Object.entries(launch.env).map(([key, value]) => `-e ${shellWord(`${key}=${value}`)}`),
        "--",
        shellWord(launch.node),
        ...args.map(shellWord),
      ].join(" ")}\n`;
    case "inspector":
      return `${[
        "npx -y -p node@22 -p @modelcontextprotocol/inspector@2 mcp-inspector",
        ...Object.entries(launch.env).map(([key, value]) => `-e ${shellWord(`${key}=${value}`)}`),
        shellWord(launch.node),
        ...args.map(shellWord),
      ].join(" ")}\n`;
    case "chatgpt": {
      const command = [
        "env",
        ...Object.entries(launch.env).map(([key, value]) => shellWord(`${key}=${value}`)),
        shellWord(launch.node),
        ...args.map(shellWord),
      ].join(" ");
      return [
        "# tunnel-client profile (OpenAI Secure MCP Tunnel): ChatGPT reaches this stdio server through",
        "# the tunnel; no inbound port. Put your tunnel id below and the runtime API key in",
        "# CONTROL_PLANE_API_KEY, then: tunnel-client run --profile-file <this file>",
        "config_version: 1",
        "control_plane:",
        "  tunnel_id: tunnel_<your tunnel id>",
        "  api_key: env:CONTROL_PLANE_API_KEY",
        "mcp:",
        "  commands:",
        "    - channel: main",
        `      command: ${JSON.stringify(command)}`,
        "",
      ].join("\n");
    }
  }
}

/** A word the shell reads back unchanged: bare when safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
