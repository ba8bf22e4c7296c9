/**
 * A minimal MCP Apps host for tests: ext-apps' own host side (`AppBridge`, the one real hosts
 * build on) runs in the test process with a real MCP client of the read server, and the view runs
 * in real headless Chromium, in a sandboxed iframe (scripts only, opaque origin) of a host page.
 * Between them, each JSON-RPC message crosses the page's real `postMessage`: the host page hands
 * what the view posts to the bridge (a Playwright binding) and posts what the bridge sends into
 * the frame, so the view sees exactly what it would see in a browser host.
 */

import {
  AppBridge,
  getToolUiResourceUri,
  RESOURCE_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type { Browser, FrameLocator, Page } from "playwright-core";

/** The one Chromium launcher of the tests (Debian's, headless). */
export { launchChromium } from "@t3-connector/test-support/chromium";

const HOST_PAGE = `<!doctype html><html><head><style>html,body{margin:0;padding:0}
iframe{display:block;width:100%;height:2000px;border:0}</style></head><body>
<iframe id="view" title="T3 board" sandbox="allow-scripts"></iframe>
<script>
const frame = document.getElementById("view");
window.addEventListener("message", (event) => {
  if (event.source === frame.contentWindow) window.__viewToHost(event.data);
});
window.__hostToView = (message) => frame.contentWindow.postMessage(message, "*");
window.__loadView = (html) => { frame.srcdoc = html; };
</script></body></html>`;

/** A `ui/message` the view asked the host to send. */
export interface HostMessage {
  role: string;
  content: Array<{ type: string; text?: string }>;
}

/** Names the host page defines for the bridge (see HOST_PAGE). */
interface HostPageGlobals {
  __hostToView(message: unknown): void;
  __loadView(html: string): void;
}

/** The bridge's transport: the host page's postMessage, reached through Playwright. */
class HostPageTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  constructor(private readonly page: Page) {}
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    await this.page.evaluate((m) => (globalThis as unknown as HostPageGlobals).__hostToView(m), message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
  receive(message: unknown): void {
    this.onmessage?.(message as JSONRPCMessage);
  }
}

/** What a wait in the view reads (the test's compiler has no DOM types). */
interface ViewBody {
  document: { body: { getAttribute(name: string): string | null } };
}

/** Waits on a list the host fills as the view asks: resolved by the asking itself, not a clock. */
class ListWaits {
  #waiters: Array<{ list: readonly unknown[]; count: number; resolve: () => void }> = [];
  /** Resolves once `list` holds `count` items (the test's own timeout bounds a wait that never ends). */
  reach(list: readonly unknown[], count: number): Promise<void> {
    if (list.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ list, count, resolve }));
  }
  /** Called after an item was added to a list. */
  added(): void {
    const due = this.#waiters.filter((waiter) => waiter.list.length >= waiter.count);
    this.#waiters = this.#waiters.filter((waiter) => waiter.list.length < waiter.count);
    for (const waiter of due) waiter.resolve();
  }
}

export interface BoardHost {
  page: Page;
  view: FrameLocator;
  /** Resolves once the number in the view body's attribute `name` (a counter the view keeps) passes `above`. */
  bodyCountPast(name: string, above: number): Promise<void>;
  /** The prompts the view asked the host to send (`ui/message`). */
  messages: HostMessage[];
  /** Resolves once the view has asked for `count` prompts. */
  messagesReach(count: number): Promise<void>;
  /** The links the view asked the host to open (`ui/open-link`). */
  links: string[];
  /** Resolves once the view has asked to open `count` links. */
  linksReach(count: number): Promise<void>;
  /** The names of the tools the view called through the host (`tools/call`), in order. */
  toolCalls: string[];
  resourceUri: string;
  mimeType: string | undefined;
  close(): Promise<void>;
}

/**
 * Finds the view `toolName` links to (tools/list, `_meta.ui.resourceUri`), reads it
 * (resources/read) and renders it in a host page `width` pixels wide, after handing it the
 * tool's result as a host does when the model called the tool.
 */
export async function openBoardHost(
  browser: Browser,
  client: Client,
  options: {
    toolName: string;
    width: number;
    hostContext?: Record<string, unknown>;
    /** A hostile host: changes what a tool answered before the view sees it. */
    rewriteResult?: (name: string, result: CallToolResult) => CallToolResult;
  },
): Promise<BoardHost> {
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === options.toolName);
  const resourceUri = tool === undefined ? undefined : getToolUiResourceUri(tool);
  if (resourceUri === undefined) throw new Error(`${options.toolName} links no view`);
  const read = await client.readResource({ uri: resourceUri });
  const content = read.contents[0] as { text?: string; mimeType?: string } | undefined;
  if (content?.text === undefined) throw new Error(`${resourceUri} has no text`);

  const context = await browser.newContext({ viewport: { width: options.width, height: 900 } });
  const page = await context.newPage();
  const transport = new HostPageTransport(page);
  await page.exposeBinding("__viewToHost", (_source, message: unknown) => transport.receive(message));
  await page.setContent(HOST_PAGE);

  const messages: HostMessage[] = [];
  const links: string[] = [];
  const waits = new ListWaits();
  const bridge = new AppBridge(
    client,
    { name: "t3-connector test host", version: "1.0.0" },
    { serverTools: {}, openLinks: {}, message: { text: {} } },
    options.hostContext === undefined
      ? {}
      : {
          hostContext: options.hostContext as NonNullable<
            NonNullable<ConstructorParameters<typeof AppBridge>[3]>["hostContext"]
          >,
        },
  );
  bridge.onmessage = async (params) => {
    messages.push(params as HostMessage);
    waits.added();
    return {};
  };
  bridge.onopenlink = async ({ url }) => {
    links.push(url);
    waits.added();
    return {};
  };
  bridge.oninitialized = () => {
    // As a host does once the model called the tool; a test that ends first closes the bridge.
    client
      .callTool({ name: options.toolName, arguments: { limit: 50 } })
      .then((result) => bridge.sendToolResult(result as Parameters<AppBridge["sendToolResult"]>[0]))
      .catch(() => undefined);
  };
  await bridge.connect(transport);
  // The bridge's own forwarding (set by connect), recorded, and rewritten where a test plays a
  // hostile host.
  const toolCalls: string[] = [];
  bridge.oncalltool = async (params, extra) => {
    toolCalls.push(params.name);
    const result = await client.request({ method: "tools/call", params }, CallToolResultSchema, {
      signal: extra.signal,
    });
    return options.rewriteResult?.(params.name, result) ?? result;
  };
  await page.evaluate((html) => (globalThis as unknown as HostPageGlobals).__loadView(html), content.text);
  return {
    page,
    view: page.frameLocator("#view"),
    bodyCountPast: async (name, above) => {
      const frame = await (await page.$("#view"))?.contentFrame();
      if (!frame) throw new Error("the host page has no view frame");
      // Waits in the view itself (a function, not a string: the view's CSP allows no eval).
      await frame.waitForFunction(
        ([attribute, count]) =>
          Number((globalThis as unknown as ViewBody).document.body.getAttribute(attribute)) > count,
        [name, above] as const,
      );
    },
    messages,
    messagesReach: (count) => waits.reach(messages, count),
    links,
    linksReach: (count) => waits.reach(links, count),
    toolCalls,
    resourceUri,
    mimeType: content.mimeType,
    close: async () => {
      await bridge.close().catch(() => {});
      await context.close();
    },
  };
}

export { RESOURCE_MIME_TYPE };
