/**
 * @module The gate's node:http server: `POST /relay` goes to the relay's door when the door takes
 * it (`relay-door.ts`), every other request, and every one the door leaves, to the Hono app.
 */
import { createServer, type Server } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import type { RelayDoor } from "../app/index.js";

export function createGateServer(app: Hono, door: RelayDoor | undefined): Server {
  const hono = getRequestListener(app.fetch, { hostname: "127.0.0.1" });
  if (door === undefined) return createServer(hono);
  return createServer((incoming, outgoing) => {
    if (!door(incoming, outgoing)) void hono(incoming, outgoing);
  });
}
