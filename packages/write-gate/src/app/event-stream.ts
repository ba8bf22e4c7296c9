/**
 * @module `GET /api/events`: server-sent events that nudge an open approval page
 * to read `POST /api/state` again. A GET, so it sits before the POST-only checks; it has its own:
 * the Host check like every route, and a cross-site request is refused (a `Sec-Fetch-Site` other
 * than same-origin/none, or an `Origin` other than the gate's). At most 8 streams at once.
 */
import { ConnectorError } from "@t3-connector/core";
import type { Context } from "hono";
import type { GateEvent, GateEvents } from "../events/index.js";

export const MAX_EVENT_STREAMS = 8;
export const PING_INTERVAL_MS = 15_000;

export interface EventStreamOptions {
  readonly port: number;
  readonly events: GateEvents;
  readonly pingIntervalMs?: number;
}

/** A route handler; the stream ends when the page goes away (the body is cancelled). */
export function eventStream(options: EventStreamOptions): (c: Context) => Response {
  const origin = `http://localhost:${options.port}`;
  let open = 0;
  return (c) => {
    const site = c.req.header("sec-fetch-site");
    const from = c.req.header("origin");
    if (
      (site !== undefined && site !== "same-origin" && site !== "none") ||
      (from !== undefined && from !== origin)
    ) {
      throw new ConnectorError(
        "origin_or_method_invalid",
        "state changes come only as JSON POSTs from the gate's own page",
      );
    }
    if (open >= MAX_EVENT_STREAMS)
      throw new ConnectorError("too_many_streams", "too many open event streams");
    open += 1;
    const encoder = new TextEncoder();
    let stop = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            stop();
          }
        };
        const unsubscribe = options.events.subscribe((event: GateEvent) =>
          send(`event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`),
        );
        const ping = setInterval(() => send(": ping\n\n"), options.pingIntervalMs ?? PING_INTERVAL_MS);
        ping.unref?.();
        let stopped = false;
        stop = () => {
          if (stopped) return;
          stopped = true;
          open -= 1;
          unsubscribe();
          clearInterval(ping);
        };
        // The first bytes tell the page the stream is live (and flush the headers through proxies).
        send(": connected\n\n");
      },
      cancel() {
        stop();
      },
    });
    return c.body(body, 200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
    });
  };
}
