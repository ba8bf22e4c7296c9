import { createServer as createTlsServer, type Server as TlsServer } from "node:https";
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { freePort } from "@t3-connector/test-support/free-port";
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from "@t3-connector/test-support/self-signed-tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchFailureReason, httpsMetadataFetcherWith, METADATA_FETCH_LIMITS } from "../src/index.js";

// A client metadata document that cannot be fetched says why, over real sockets on loopback: a
// refused connection, a host that never answers, a certificate that does not verify. A DNS failure
// cannot be made here without asking a resolver off this machine, so its words are checked on the
// error Node's fetch throws for one (a TypeError whose cause carries ENOTFOUND).
const fetcher = httpsMetadataFetcherWith({ ...METADATA_FETCH_LIMITS, timeoutMs: 300 });
let silent: Server;
let untrusted: TlsServer;
const held: Socket[] = [];
let silentUrl: string;
let untrustedUrl: string;
let refusedUrl: string;

beforeAll(async () => {
  silent = createTcpServer((socket) => void held.push(socket));
  untrusted = createTlsServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }, (_req, res) => res.end("{}"));
  const [silentPort, untrustedPort, refusedPort] = [await freePort(), await freePort(), await freePort()];
  await new Promise<void>((resolve) => silent.listen(silentPort, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => untrusted.listen(untrustedPort, "127.0.0.1", resolve));
  silentUrl = `https://127.0.0.1:${silentPort}/client.json`;
  untrustedUrl = `https://127.0.0.1:${untrustedPort}/client.json`;
  refusedUrl = `https://127.0.0.1:${refusedPort}/client.json`;
});

afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await new Promise<void>((resolve) => untrusted.close(() => resolve()));
});

describe("why a client metadata document could not be fetched", () => {
  it("refused: nothing listens on the port", async () => {
    await expect(fetcher(refusedUrl)).rejects.toMatchObject({
      code: "client_metadata_unavailable",
      message: `${refusedUrl} could not be fetched: refused: the host could not be reached (ECONNREFUSED)`,
    });
  });

  it("timeout: the host takes the connection and never answers", async () => {
    await expect(fetcher(silentUrl)).rejects.toMatchObject({
      message: `${silentUrl} could not be fetched: timeout: no answer within 0.3 s`,
    });
  });

  it("TLS: the host's certificate is signed by nobody this server trusts", async () => {
    await expect(fetcher(untrustedUrl)).rejects.toMatchObject({
      message: expect.stringMatching(
        /could not be fetched: TLS: the host's certificate did not verify \((SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE)\)$/,
      ),
    });
  });

  it("DNS: the name did not resolve", () => {
    const lookup = Object.assign(new Error("getaddrinfo ENOTFOUND chatgpt.com"), { code: "ENOTFOUND" });
    const thrown = new TypeError("fetch failed", { cause: lookup });
    expect(fetchFailureReason(thrown, 5_000)).toBe("DNS: the host name did not resolve (ENOTFOUND)");
  });

  it("never fetches anything but https", async () => {
    await expect(fetcher("http://127.0.0.1:1/client.json")).rejects.toMatchObject({
      message: "http://127.0.0.1:1/client.json is not https",
    });
  });
});
