import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isConnectorError } from "../../src/errors.js";
import { readCappedText } from "../../src/t3/capped-body.js";
import { T3HttpClient } from "../../src/t3/http-client.js";

// One hostile environment answering many reads at once, each under the per-answer cap: its
// client's budget bounds what they hold together, and only that environment's read is refused
// (issue 20: "one hostile environment can exhaust serve --http for all").
const KIB = 1024;
const PER_ANSWER = 768 * KIB;
const ANSWER_CAP = 1024 * KIB;
const IN_FLIGHT_BUDGET = 2048 * KIB;
const DESCRIPTOR = {
  environmentId: "env-1",
  label: "hostile",
  platform: { os: "linux", arch: "x64" },
  serverVersion: "1.0.0",
  capabilities: { repositoryIdentity: true },
};

let mode: "stall" | "honest" = "stall";
const stalled: ServerResponse[] = [];
let server: ReturnType<typeof createServer>;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    if (mode === "honest") return void res.end(JSON.stringify(DESCRIPTOR));
    // Three quarters of the cap, then nothing until the test lets it end.
    res.write(`{"padding":"${" ".repeat(PER_ANSWER)}`);
    stalled.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("one environment's budget for answers read at once", () => {
  it("refuses the answer that would pass it, lets the others finish, and gives the bytes back", async () => {
    const client = new T3HttpClient({
      baseUrl,
      environment: "hostile",
      maxBodyBytes: ANSWER_CAP,
      maxBytesInFlight: IN_FLIGHT_BUDGET,
    });
    // Three answers of 768 KiB each fit the per-answer cap but not, together, the 2 MiB budget.
    const reads = Array.from({ length: 3 }, () =>
      client.getDescriptor().then(
        () => "read",
        (error: unknown) => error,
      ),
    );
    // Nothing ends until the budget refuses one: the other two are still stalled.
    const first = await Promise.race(reads);
    expect(isConnectorError(first, "response_too_large")).toBe(true);
    const message = (first as Error).message;
    expect(message).toContain('environment "hostile"');
    expect(message).toContain(String(IN_FLIGHT_BUDGET));
    expect((first as { details?: Record<string, unknown> }).details).toMatchObject({
      environment: "hostile",
      limit: "environment_in_flight",
      limitBytes: IN_FLIGHT_BUDGET,
    });

    // The two that fit are read whole: their failure is the body's shape, never a size.
    for (const res of stalled) if (!res.writableEnded) res.end('"}');
    const outcomes = await Promise.all(reads);
    const refusals = outcomes.filter((outcome) => isConnectorError(outcome, "response_too_large"));
    expect(refusals).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => !isConnectorError(o, "response_too_large"))) {
      expect(isConnectorError(outcome, "invalid_response")).toBe(true);
    }

    // Every byte was given back: an honest answer is read as usual.
    mode = "honest";
    await expect(client.getDescriptor()).resolves.toMatchObject({ environmentId: "env-1" });
  });
});

describe("an answer read chunk by chunk", () => {
  it("decodes a character split across two chunks whole", async () => {
    const bytes = new TextEncoder().encode('{"title":"café ✓"}');
    // Cut inside "é" (two bytes) and inside "✓" (three bytes).
    const cuts = [bytes.indexOf(0xc3) + 1, bytes.indexOf(0xe2) + 2];
    const pieces = [bytes.slice(0, cuts[0]), bytes.slice(cuts[0], cuts[1]), bytes.slice(cuts[1])];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    });
    const read = await readCappedText(new Response(body), 1024);
    expect(read).toEqual({ text: '{"title":"café ✓"}' });
  });
});
