/**
 * @module `client-config <client> --http` when the read config has an `oauth` section: the
 * issuer's `/mcp` URL and nothing secret, since each client signs in by OAuth itself (the page
 * asks for the owner's passkey). ChatGPT and Claude are configured in their own settings, so for
 * them this prints the steps; the others get the file or command that names the URL.
 */
import { ConnectorError } from "@t3-connector/core";
import { CLIENT_NAMES } from "@t3-connector/core/cli-support";

export function oauthClientConfigSnippet(client: string, options: { name: string; url: string }): string {
  const { name, url } = options;
  switch (client) {
    case "chatgpt":
      return lines(
        "# ChatGPT: Settings → Apps & Connectors → Advanced settings → Developer mode, then Create:",
        `#   MCP server URL: ${url}`,
        "#   Authentication: OAuth (ChatGPT presents its client metadata document; nothing to paste)",
        "# The sign-in page asks for your passkey, then shows what ChatGPT asks for: click Allow.",
      );
    case "claude-desktop":
      return lines(
        "# Claude (claude.ai, Desktop and mobile share connectors): Settings → Connectors →",
        "# Add custom connector:",
        `#   Remote MCP server URL: ${url}`,
        "# Claude signs in with its hosted client metadata; approve with your passkey on the page.",
      );
    case "claude-code":
      return lines(
        `claude mcp add --transport http ${name} ${url}`,
        "# then run /mcp in Claude Code and choose Authenticate: the sign-in page opens in your browser",
      );
    case "cursor":
      return json({ mcpServers: { [name]: { url } } });
    case "vscode":
      return json({ servers: { [name]: { type: "http", url } } });
    case "inspector":
      return lines(
        "npx -y -p node@22 -p @modelcontextprotocol/inspector@2 mcp-inspector",
        `# Transport Streamable HTTP, URL ${url}; then Open Auth Settings → Quick OAuth Flow`,
      );
    default:
      throw new ConnectorError(
        "invalid_input",
        `unknown client "${client}"; one of ${CLIENT_NAMES.join(", ")} (docs/clients.md explains each)`,
      );
  }
}

function lines(...text: string[]): string {
  return `${text.join("\n")}\n`;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
