/**
 * Which client each request to `serve --http` came from, for every budget that counts per client
 * (ADR 0044): the OAuth profile's sign-in budgets and the approval page's, forwarded to the gate.
 * One derivation (`clientAddressOf`: the TCP peer, or what a `--trusted-proxy` reports), and one
 * warning, said once, when a peer that is not trusted sends forwarding headers: every client behind
 * it then shares that peer's budgets.
 */
import type { Context } from "hono";
import { clientAddressOf } from "./client-address.js";

export class RequestClients {
  readonly #trusted: ReadonlySet<string>;
  readonly #warn: (line: string) => void;
  #warned = false;

  constructor(trusted: ReadonlySet<string>, warn: (line: string) => void) {
    this.#trusted = trusted;
    this.#warn = warn;
  }

  /** The client's address: a header from any peer but a trusted proxy is never believed. */
  addressOf(c: Context): string {
    const client = clientAddressOf(socketAddress(c), c.req.raw.headers, this.#trusted);
    if (client.untrustedForwarding && !this.#warned) {
      this.#warned = true;
      this.#warn(
        `requests reached serve through a proxy at ${client.address} that serve does not trust: ` +
          "every client behind it shares one sign-in and approval budget. " +
          `If that proxy is yours, start serve with --trusted-proxy ${client.address}`,
      );
    }
    return client.address;
  }
}

/** The socket's remote address under @hono/node-server. */
function socketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
