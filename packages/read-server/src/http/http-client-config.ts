import { ConnectorError } from "@t3-connector/core";
import { CLIENT_NAMES } from "@t3-connector/core/cli-support";
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, MCP_PATH } from "./http-options.js";

/** Where `serve --http` listens when started with its defaults. */
export const DEFAULT_HTTP_URL = `http://${DEFAULT_HTTP_HOST}:${DEFAULT_HTTP_PORT}${MCP_PATH}`;

/** The environment variables the snippets read the token from; the token itself is never printed. */
export const TOKEN_ENV = "T3_CONNECTOR_HTTP_TOKEN";
export const AUTHORIZATION_ENV = "T3_CONNECTOR_HTTP_AUTHORIZATION";

/**
 * `client-config <client> --http`: what to paste into `client` to reach a running
 * `serve --http` at `url` with a bearer token (docs/clients.md, "Over HTTP"). Claude Desktop's
 * config file starts stdio servers only, so it gets the stdio snippet instead (an error says so).
 */
export function httpClientConfigSnippet(client: string, options: { name: string; url: string }): string {
  const { name, url } = options;
  switch (client) {
    case "chatgpt":
      return [
        "# tunnel-client profile (OpenAI Secure MCP Tunnel) for a running `t3-connector serve --http`.",
        `# Before running: export ${AUTHORIZATION_ENV}="Bearer $(cat <your --auth-token-file>)"`,
        "# and the runtime API key in CONTROL_PLANE_API_KEY; then: tunnel-client run --profile-file <this file>",
        "config_version: 1",
        "control_plane:",
        "  tunnel_id: tunnel_<your tunnel id>",
        "  api_key: env:CONTROL_PLANE_API_KEY",
        "mcp:",
        "  server_urls:",
        "    - channel: main",
        `      url: ${url}`,
        "  extra_headers:",
        `    Authorization: env:${AUTHORIZATION_ENV}`,
        "",
      ].join("\n");
    case "claude-code":
      return `claude mcp add --transport http ${name} ${url} --header "Authorization: Bearer $${TOKEN_ENV}"\n`;
    case "cursor":
      return json({
        mcpServers: { [name]: { url, headers: { Authorization: `Bearer \${env:${TOKEN_ENV}}` } } },
      });
    case "vscode":
      return json({
        inputs: [
          { type: "promptString", id: `${name}-token`, description: `${name} HTTP token`, password: true },
        ],
        servers: {
          [name]: { type: "http", url, headers: { Authorization: `Bearer \${input:${name}-token}` } },
        },
      });
    case "inspector":
      return [
        "npx -y -p node@22 -p @modelcontextprotocol/inspector@2 mcp-inspector",
        `# then choose the Streamable HTTP transport, URL ${url}, and the header Authorization: Bearer <token>`,
        "",
      ].join("\n");
    case "claude-desktop":
      throw new ConnectorError(
        "invalid_input",
        "claude-desktop's config file starts stdio servers only; use client-config claude-desktop without --http",
      );
    default:
      throw new ConnectorError(
        "invalid_input",
        `unknown client "${client}"; one of ${CLIENT_NAMES.join(", ")} (docs/clients.md explains each)`,
      );
  }
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
