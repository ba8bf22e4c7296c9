/**
 * T3 answers a request its HTTP schema cannot decode (no protocol header, a missing query
 * parameter) with 400 and an empty body, not a tagged JSON error. The
 * client classifies it; it never tries to parse the empty body as data.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { T3HttpClient } from "../../src/t3/index.js";
import { caughtConnectorError } from "../support/caught-connector-error.js";

let server: Server;
let baseUrl: string;
let answer: { status: number; type?: string; body: string } = { status: 400, body: "" };

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(answer.status, answer.type ? { "content-type": answer.type } : {});
    response.end(answer.body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("a 400 from T3", () => {
  it("with an empty body is a bad request or protocol mismatch, never a parse failure", async () => {
    answer = { status: 400, body: "" };
    const error = await caughtConnectorError(new T3HttpClient({ baseUrl, token: "t" }).getShell());
    expect(error.code).toBe("invalid_request");
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      "GET /api/orchestration/shell: T3 rejected the request (400, empty body: protocol mismatch or bad request)",
    );
  });

  it("with an empty body and a JSON content type is classified the same way", async () => {
    answer = { status: 400, type: "application/json", body: "" };
    const error = await caughtConnectorError(new T3HttpClient({ baseUrl, token: "t" }).getShell());
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("empty body: protocol mismatch or bad request");
  });

  it("with T3's tagged JSON error keeps what T3 said", async () => {
    answer = { status: 400, type: "application/json", body: '{"_tag":"BadRequest","code":"invalid_cursor"}' };
    const error = await caughtConnectorError(new T3HttpClient({ baseUrl, token: "t" }).getShell());
    expect(error.code).toBe("invalid_request");
    expect(error.t3).toMatchObject({ tag: "BadRequest", code: "invalid_cursor" });
    expect(error.message).not.toContain("empty body");
  });
});
