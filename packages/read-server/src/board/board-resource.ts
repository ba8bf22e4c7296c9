import { ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { ToolServer } from "@t3-connector/mcp-tools";
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

/** The board as `resources/list` and `resources/read` describe it. */
const BOARD_RESOURCE = Object.freeze({
  uri: BOARD_RESOURCE_URI,
  name: "t3-board",
  title: "Agents board",
  description:
    "Every machine's threads grouped as needs you, running and done recently, with what happened since you last looked (an MCP App view of t3_control_plane).",
  mimeType: BOARD_MIME_TYPE,
  _meta: BOARD_RESOURCE_META,
});

/**
 * Registers the board as the one resource of `server`, on the protocol server's own handlers (the
 * tools are registered the same way, ADR 0046). The one seam between the board and the MCP SDK.
 * A read of any other URI is the protocol's "resource not found", naming the one there is.
 */
export function registerBoardResource(server: ToolServer): void {
  server.registerCapabilities({ resources: { listChanged: false } });
  server.setRequestHandler("resources/list", () => ({ resources: [{ ...BOARD_RESOURCE }] }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", (request) => {
    if (request.params.uri !== BOARD_RESOURCE_URI) {
      throw new ResourceNotFoundError(
        request.params.uri,
        `Resource ${request.params.uri} not found: this server has one resource, ${BOARD_RESOURCE_URI}`,
      );
    }
    return {
      contents: [
        { uri: BOARD_RESOURCE_URI, mimeType: BOARD_MIME_TYPE, text: BOARD_HTML, _meta: BOARD_RESOURCE_META },
      ],
    };
  });
}
