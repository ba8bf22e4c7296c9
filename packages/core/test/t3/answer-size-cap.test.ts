import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isConnectorError } from "../../src/errors.js";
import { MAX_T3_ANSWER_BYTES } from "../../src/t3/capped-body.js";
import { T3HttpClient } from "../../src/t3/http-client.js";

// A hostile T3 answering ~200 MB to the descriptor (issue 20 drove `diagnose` to 908 MB). The
// client reads the body as a stream and refuses it at the cap, so the process never holds it.
const HOSTILE_BYTES = 200 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x20);
/** What the test allows the process to grow while refusing the answer: the cap plus slack for the runtime. */
const RSS_GROWTH_BOUND = MAX_T3_ANSWER_BYTES + 64 * 1024 * 1024;

let server: Server;
let baseUrl: string;
let bytesSent = 0;
let answersEnded: Promise<void>[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const declared = req.url?.includes("declared") ?? false;
    res.writeHead(200, {
      "content-type": "application/json",
      ...(declared ? { "content-length": String(HOSTILE_BYTES) } : {}),
    });
    answersEnded.push(new Promise((resolve) => res.once("close", () => resolve())));
    let left = HOSTILE_BYTES;
    const pump = () => {
      while (left > 0) {
        left -= CHUNK.length;
        bytesSent += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once("drain", pump);
      }
      res.end();
    };
    res.write("{");
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function refusal(client: T3HttpClient): Promise<unknown> {
  try {
    await client.getDescriptor();
  } catch (error) {
    return error;
  }
  throw new Error("a 200 MB descriptor was accepted");
}

describe("the T3 client's cap on answer bodies", () => {
  it("refuses a 200 MB streamed descriptor as response_too_large, naming the environment, with bounded memory", async () => {
    answersEnded = [];
    bytesSent = 0;
    const client = new T3HttpClient({ baseUrl, environment: "hostile" });
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 1);
    const error = await refusal(client);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);

    expect(isConnectorError(error, "response_too_large")).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('environment "hostile"');
    expect(message).toContain("GET /.well-known/t3/environment");
    expect(message).toContain(String(MAX_T3_ANSWER_BYTES));
    expect((error as { details?: Record<string, unknown> }).details).toMatchObject({
      environment: "hostile",
      limitBytes: MAX_T3_ANSWER_BYTES,
    });
    expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);
    // The connection was dropped: the hostile server did not get to send everything.
    await Promise.all(answersEnded);
    expect(bytesSent).toBeLessThan(HOSTILE_BYTES);
  });

  it("refuses a declared Content-Length over the cap before reading the body", async () => {
    const client = new T3HttpClient({
      baseUrl: `${baseUrl}/declared`,
      environment: "hostile",
      maxBodyBytes: 1024,
    });
    const error = await refusal(client);
    expect(isConnectorError(error, "response_too_large")).toBe(true);
    expect((error as Error).message).toContain("1024 bytes");
  });

  it("still reads an answer under the cap", async () => {
    const small = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          environmentId: "env-1",
          label: "ok",
          platform: { os: "linux", arch: "x64" },
          serverVersion: "1.0.0",
          capabilities: { repositoryIdentity: true },
        }),
      );
    });
    await new Promise<void>((resolve) => small.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(small.address() as AddressInfo).port}`;
      const client = new T3HttpClient({ baseUrl: url, maxBodyBytes: 4096 });
      const answer = await client.getDescriptor().catch((error: unknown) => error);
      // Whatever the schema says of this body, it was read: the failure is never the cap.
      expect(isConnectorError(answer, "response_too_large")).toBe(false);
    } finally {
      await new Promise<void>((resolve) => small.close(() => resolve()));
    }
  });
});
