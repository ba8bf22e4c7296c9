/**
 * A real HTTP client for `GET /api/events`: reads the server-sent events off the socket as they
 * arrive and lets a test wait for the next event of a type (no sleeps: each wait is a promise
 * the stream resolves).
 */
import { type ClientRequest, request } from "node:http";

export interface SentEvent {
  type: string;
  data: Record<string, unknown>;
}

export interface EventStreamClient {
  status: number;
  contentType: string | undefined;
  /** The answer's headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** Resolves with the first event of `type` not yet taken (already received, or still to come). */
  next(type: string): Promise<SentEvent>;
  /** Comment lines received so far (`connected`, `ping`). */
  comments: string[];
  /** Resolves when a comment line with this text arrives (or has arrived). */
  nextComment(text: string): Promise<void>;
  close(): void;
}

export function openEventStream(
  port: number,
  headers: Record<string, string> = {},
  path = "/api/events",
): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const received: SentEvent[] = [];
    const waiting: Array<{ type: string; resolve: (event: SentEvent) => void }> = [];
    const comments: string[] = [];
    const commentWaiters: Array<{ text: string; resolve: () => void }> = [];
    let buffer = "";
    const deliver = () => {
      for (const waiter of [...waiting]) {
        const index = received.findIndex((event) => event.type === waiter.type);
        if (index < 0) continue;
        const [event] = received.splice(index, 1);
        waiting.splice(waiting.indexOf(waiter), 1);
        if (event !== undefined) waiter.resolve(event);
      }
    };
    const req: ClientRequest = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "GET",
        headers: { host: `localhost:${port}`, accept: "text/event-stream", ...headers },
      },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf("\n\n");
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let type = "message";
            const data: string[] = [];
            for (const line of block.split("\n")) {
              if (line.startsWith(":")) comments.push(line.slice(1).trim());
              else if (line.startsWith("event: ")) type = line.slice(7);
              else if (line.startsWith("data: ")) data.push(line.slice(6));
            }
            if (data.length > 0) received.push({ type, data: JSON.parse(data.join("\n")) });
            end = buffer.indexOf("\n\n");
          }
          deliver();
          for (const waiter of [...commentWaiters]) {
            if (!comments.includes(waiter.text)) continue;
            commentWaiters.splice(commentWaiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        });
        res.on("error", () => undefined);
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers["content-type"],
          headers: res.headers,
          comments,
          nextComment(text) {
            return new Promise((resolveComment) => {
              if (comments.includes(text)) resolveComment();
              else commentWaiters.push({ text, resolve: resolveComment });
            });
          },
          next(type) {
            return new Promise((resolveEvent) => {
              waiting.push({ type, resolve: resolveEvent });
              deliver();
            });
          },
          close() {
            req.destroy();
          },
        });
      },
    );
    req.on("error", (error) => {
      if ((error as NodeJS.ErrnoException).code !== "ECONNRESET") reject(error);
    });
    req.end();
  });
}
