/**
 * The gate's node:http server (`createGateServer`) over an app, listening on a free loopback port:
 * with the relay's door, as the gate runs, or without it, as the gate served the relay before it.
 */
import type { AddressInfo } from "node:net";
import type { Hono } from "hono";
import type { RelayDoor } from "../../../src/app/index.js";
import { createGateServer } from "../../../src/process/gate-server.js";

export interface ListeningGateServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function listenGateServer(app: Hono, door: RelayDoor | undefined): Promise<ListeningGateServer> {
  const server = createGateServer(app, door);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
