/**
 * @module `GET /api/events`: server-sent events that nudge an open approval page
 * to read `POST /api/state` again. A GET, so it sits before the POST-only checks; it has its own:
 * the Host check like every route, and a cross-site request is refused (a `Sec-Fetch-Site` other
 * than same-origin/none, or an `Origin` other than the gate's). Streams are counted per page
 * (ADR 0028): each page load names itself (`?page=<random id>`), holds at most 2 streams, and the
 * gate keeps at most 32 in all, so one page (or a process posing as pages) cannot take the others'.
 */
import { ConnectorError } from "@t3-connector/core";
import { edgeNames } from "@t3-connector/core/http-edge";
import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import type { GateEvent, GateEvents } from "../events/gate-events.js";
import { originIs, pageOrigin } from "../security/index.js";

/** Streams the gate keeps open in all: a memory bound. */
export const MAX_EVENT_STREAMS = 32;
/** Streams one page may hold (a reconnect may briefly overlap the stream it replaces). */
export const MAX_STREAMS_PER_PAGE = 2;
const PAGE_ID = /^[A-Za-z0-9_-]{8,64}$/;
export const PING_INTERVAL_MS = 15_000;

export interface EventStreamOptions {
  readonly port: number;
  readonly events: GateEvents;
  readonly pingIntervalMs?: number;
}

/** A route handler; the stream ends when the page goes away (the body is cancelled). */
export function eventStream(options: EventStreamOptions): (c: Context) => Response {
  const names = edgeNames([], [pageOrigin(options.port)]);
  let open = 0;
  const perPage = new Map<string, number>();
  return (c) => {
    const site = c.req.header("sec-fetch-site");
    if (
      (site !== undefined && site !== "same-origin" && site !== "none") ||
      !originIs(c, names, "optional")
    ) {
      throw new ConnectorError(
        "origin_or_method_invalid",
        "state changes come only as JSON POSTs from the gate's own page",
      );
    }
    // A stream that does not name its page counts against one shared "unnamed" page.
    const named = c.req.query("page");
    const page = named !== undefined && PAGE_ID.test(named) ? named : "unnamed";
    const mine = perPage.get(page) ?? 0;
    if (mine >= MAX_STREAMS_PER_PAGE) {
      throw new ConnectorError(
        "client_budget_exceeded",
        `this page already holds ${MAX_STREAMS_PER_PAGE} event streams, its limit`,
        { details: { budget: "event_streams", limit: MAX_STREAMS_PER_PAGE } },
      );
    }
    if (open >= MAX_EVENT_STREAMS)
      throw new ConnectorError("too_many_streams", "too many open event streams");
    open += 1;
    perPage.set(page, mine + 1);
    const release = () => {
      open -= 1;
      const left = (perPage.get(page) ?? 1) - 1;
      if (left > 0) perPage.set(page, left);
      else perPage.delete(page);
    };
    c.header("X-Accel-Buffering", "no");
    return streamSSE(c, (stream) => followEvents(stream, options, release));
  };
}

/**
 * Hono's `streamSSE` carries the stream (ADR 0056): nudges as `event:`/`data:` frames, the
 * keep-alive as comments. It runs until the page goes away (the body is cancelled, which aborts the
 * stream), then unsubscribes, stops the pings and frees the page's slot.
 */
async function followEvents(
  stream: SSEStreamingApi,
  options: EventStreamOptions,
  release: () => void,
): Promise<void> {
  const gone = new Promise<void>((resolve) => stream.onAbort(resolve));
  const unsubscribe = options.events.subscribe((event: GateEvent) => {
    // A page that went away mid-write is the abort above, not an error to raise here.
    stream.writeSSE({ event: event.type, data: JSON.stringify(event.data) }).catch(() => undefined);
  });
  const ping = setInterval(() => void stream.write(": ping\n\n"), options.pingIntervalMs ?? PING_INTERVAL_MS);
  ping.unref?.();
  try {
    // The first bytes tell the page the stream is live (and flush the headers through proxies).
    await stream.write(": connected\n\n");
    await gone;
  } finally {
    unsubscribe();
    clearInterval(ping);
    release();
  }
}
