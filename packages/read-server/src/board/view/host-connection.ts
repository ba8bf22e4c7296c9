/**
 * The view's side of the MCP Apps protocol (JSON-RPC 2.0 over postMessage with the host), written
 * out instead of bundling the SDK: the board needs six messages, and a small, readable surface is
 * easier to hold against a hostile host. Only messages from the parent window are read; anything
 * else (another frame, a popup) is dropped before parsing.
 */

export const APPS_PROTOCOL_VERSION = "2026-01-26";

type Json = Record<string, unknown>;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export type NotificationHandler = (params: Json) => void;

export class HostConnection {
  readonly #pending = new Map<number, Pending>();
  readonly #handlers = new Map<string, NotificationHandler>();
  readonly #target: Window;
  #nextId = 1;

  constructor(target: Window) {
    this.#target = target;
    window.addEventListener("message", (event) => {
      if (event.source !== this.#target) return;
      this.#receive(event.data);
    });
  }

  /** Calls `handler` for each notification `method` the host sends (one handler per method). */
  on(method: string, handler: NotificationHandler): void {
    this.#handlers.set(method, handler);
  }

  request(method: string, params: Json): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#post({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: Json = {}): void {
    this.#post({ jsonrpc: "2.0", method, params });
  }

  /** `ui/initialize`, then `ui/notifications/initialized`: the host answers with its context. */
  async initialize(appInfo: { name: string; version: string }): Promise<Json> {
    const result = await this.request("ui/initialize", {
      appInfo,
      appCapabilities: {},
      protocolVersion: APPS_PROTOCOL_VERSION,
    });
    this.notify("ui/notifications/initialized");
    return isObject(result) ? result : {};
  }

  /** A server tool through the host; resolves to its `structuredContent`, rejects on a tool error. */
  async callTool(name: string, args: Json): Promise<Json> {
    return (await this.callToolResult(name, args)).structured;
  }

  /** A server tool through the host: its `structuredContent` and its result's `_meta` (for views). */
  async callToolResult(name: string, args: Json): Promise<{ structured: Json; meta: Json }> {
    const result = await this.request("tools/call", { name, arguments: args });
    if (!isObject(result)) throw new Error(`${name}: the host answered no result`);
    if (result.isError === true) throw new Error(`${name}: ${firstText(result) ?? "tool error"}`);
    return {
      structured: isObject(result.structuredContent) ? result.structuredContent : {},
      meta: isObject(result._meta) ? result._meta : {},
    };
  }

  #post(message: Json): void {
    // The host's origin is not known to a sandboxed view (its own origin is opaque), so "*";
    // nothing secret is ever sent: tool names, read arguments, and prompts the person chose.
    this.#target.postMessage(message, "*");
  }

  #receive(data: unknown): void {
    if (!isObject(data) || data.jsonrpc !== "2.0") return;
    if (typeof data.id === "number" && ("result" in data || "error" in data)) {
      const pending = this.#pending.get(data.id);
      if (pending === undefined) return;
      this.#pending.delete(data.id);
      if ("error" in data) pending.reject(new Error(errorText(data.error)));
      else pending.resolve(data.result);
      return;
    }
    if (typeof data.method !== "string") return;
    const params = isObject(data.params) ? data.params : {};
    if ("id" in data) {
      this.#answerRequest(data.id, data.method);
      return;
    }
    this.#handlers.get(data.method)?.(params);
  }

  /** The host's requests: ping and teardown are answered; the view offers nothing else. */
  #answerRequest(id: unknown, method: string): void {
    if (typeof id !== "number" && typeof id !== "string") return;
    if (method === "ping" || method === "ui/resource-teardown") {
      this.#post({ jsonrpc: "2.0", id, result: {} });
      return;
    }
    this.#post({
      jsonrpc: "2.0",
      id,
      error: { code: -32601, message: `the board does not handle ${method}` },
    });
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorText(error: unknown): string {
  return isObject(error) && typeof error.message === "string" ? error.message : "request failed";
}

function firstText(result: Json): string | undefined {
  const content = Array.isArray(result.content) ? result.content : [];
  const first = content.find((block): block is Json => isObject(block) && block.type === "text");
  return typeof first?.text === "string" ? first.text : undefined;
}
