/**
 * A stand-in for the gate's relay on a real loopback socket, for the tests that must prove what
 * the bridge does NOT send (strict inputs, bad capability files): it records every request and
 * answers with whatever the test scripts. The real relay is exercised in bridge-against-gate.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RecordedRequest {
  readonly headers: IncomingMessage["headers"];
  /** The body without `leaseSecret`, which is recorded on its own (it is this process's, ADR 0040). */
  readonly body: Record<string, unknown>;
  readonly leaseSecret?: unknown;
}

export type FakeAnswer = { status: number; body: unknown };

export interface FakeGate {
  readonly port: number;
  readonly stateDir: string;
  readonly requests: RecordedRequest[];
  capability: string;
  /** Scripted answer per request; default 200 `{}`. */
  answer: (request: RecordedRequest) => FakeAnswer;
  /** Writes a fresh capability file (mode 0600 unless told) and returns the capability. */
  writeCapability(mode?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeGate(): Promise<FakeGate> {
  const stateDir = await mkdtemp(join(tmpdir(), "t3c-bridge-"));
  const requests: RecordedRequest[] = [];
  const gate: FakeGate = {
    port: 0,
    stateDir,
    requests,
    capability: "",
    answer: () => ({ status: 200, body: {} }),
    async writeCapability(mode = 0o600) {
      gate.capability = randomBytes(32).toString("base64url");
      const path = join(stateDir, "relay-capability");
      await rm(path, { force: true });
      await writeFile(path, gate.capability, { mode: 0o600 });
      await chmod(path, mode); // exact, whatever the umask
      return gate.capability;
    },
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const { leaseSecret, ...body } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const recorded = { headers: req.headers, body, ...(leaseSecret === undefined ? {} : { leaseSecret }) };
      requests.push(recorded);
      const presented = req.headers["x-t3-private-relay"];
      const answer =
        presented === gate.capability
          ? gate.answer(recorded)
          : { status: 401, body: { error: "channel_unverified" } };
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  Object.assign(gate, { port: (server.address() as AddressInfo).port });
  gate.close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(stateDir, { recursive: true, force: true });
  };
  return gate;
}
