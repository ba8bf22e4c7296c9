import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { BOARD_HTML } from "./board-html.generated.js";

/** The board's address; `t3_control_plane` names it in `_meta.ui.resourceUri` (MCP Apps). */
export const BOARD_RESOURCE_URI = "ui://t3-connector/board.html";

/** MCP Apps' MIME type for an HTML view (`RESOURCE_MIME_TYPE` of `@modelcontextprotocol/ext-apps`). */
export const BOARD_MIME_TYPE = "text/html;profile=mcp-app";

/**
 * What the board asks of the host: no network origin at all (its script and style are inline,
 * its data comes only through the host's tool calls), no device permission, a border.
 */
export const BOARD_RESOURCE_META = Object.freeze({
  ui: Object.freeze({
    csp: Object.freeze({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }),
    prefersBorder: true,
  }),
});

/**
 * Registers the board as a resource of `server`. The one seam between the board and the MCP SDK:
 * when the servers move to another SDK, only this file changes.
 */
export function registerBoardResource(server: McpServer): void {
  server.registerResource(
    "t3-board",
    BOARD_RESOURCE_URI,
    {
      title: "Agents board",
      description:
        "Every machine's threads grouped as needs you, running and done recently, with what happened since you last looked (an MCP App view of t3_control_plane).",
      mimeType: BOARD_MIME_TYPE,
      _meta: BOARD_RESOURCE_META,
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: BOARD_MIME_TYPE, text: BOARD_HTML, _meta: BOARD_RESOURCE_META }],
    }),
  );
}
