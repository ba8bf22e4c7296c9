import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/**
 * At most `max` open connections, without letting connections that never finish a request lock
 * the server out (issue 20: 300 half-open header connections held every slot). Node's own
 * `maxConnections` refuses the newcomer; this closes instead the connection that has waited
 * longest without a whole request: no headers yet, a body still arriving, or idle between
 * keep-alive requests. A connection whose request was read whole is working and is never closed
 * here; when every connection is working, the newcomer is refused.
 *
 * An honest client sends its request within milliseconds of connecting, so a flood can only
 * close its own older connections; the header and request timeouts end them anyway.
 */
export function limitConnections(server: Server, max: number): void {
  // Insertion order is the eviction order: an entry is moved to the end when its state changes.
  const open = new Map<Socket, IncomingMessage | undefined>();
  const touch = (socket: Socket, request: IncomingMessage | undefined) => {
    open.delete(socket);
    open.set(socket, request);
  };
  server.on("connection", (socket: Socket) => {
    if (open.size >= max) {
      const victim = oldestUnfinished(open);
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      open.delete(victim);
      victim.destroy();
    }
    touch(socket, undefined);
    socket.once("close", () => open.delete(socket));
  });
  server.on("request", (request: IncomingMessage, response) => {
    const socket = request.socket;
    if (!open.has(socket)) return;
    touch(socket, request);
    response.once("finish", () => {
      if (open.has(socket)) touch(socket, undefined);
    });
  });
}

/** The connection waiting longest without a whole request (its body not complete, or none). */
function oldestUnfinished(open: ReadonlyMap<Socket, IncomingMessage | undefined>): Socket | undefined {
  for (const [socket, request] of open) {
    if (request === undefined || !request.complete) return socket;
  }
  return undefined;
}
