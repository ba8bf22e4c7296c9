// The floor under `t3-connector serve`'s start-up: a process that loads only the MCP SDK parts a
// stdio server needs (the protocol server and the stdio transport), serves one tool whose input
// is a zod schema, answers `initialize`, `tools/list` and one call, and ends when stdin ends.
// It lives in this package so that it resolves the same SDK and zod as the server.
// bench/read-startup.mjs spawns it beside `serve` so the report says how much of the start-up
// is the SDK's own and how much is ours.
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const input = z.strictObject({});
// As the read server (src/server.ts): no elicitation, so no JSON Schema validator is built.
const jsonSchemaValidator = {
  getValidator() {
    throw new Error("sdk-floor validates no JSON Schema");
  },
};
const factory = () => {
  const server = new Server(
    { name: "sdk-floor", version: "0.0.0" },
    { capabilities: { tools: {} }, jsonSchemaValidator },
  );
  server.setRequestHandler("tools/list", () => ({
    tools: [{ name: "t3_ambientes", inputSchema: z.toJSONSchema(input) }],
  }));
  server.setRequestHandler("tools/call", (request) => {
    input.parse(request.params.arguments ?? {});
    return { content: [{ type: "text", text: "[]" }] };
  });
  return server;
};
const handle = serveStdio(factory);
process.stdin.once("end", () => void handle.close());
