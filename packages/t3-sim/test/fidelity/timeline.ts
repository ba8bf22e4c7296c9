/**
 * Plays captured WebSocket transcripts against the simulator in their wire order.
 *
 * Each captured socket becomes a channel. A channel's frames keep their `seq` order; frames of
 * different channels (a stream and the socket that triggers its live items) are interleaved by
 * `t_ms`, which the capture measured on one clock per phase. A sent frame is sent; a received
 * frame is awaited (the next frame of that request id), so every step waits on the previous
 * step's answer instead of on a timer.
 */
import type { Frame, WsChannel } from "./ws-channel.js";
import { frameRequestId } from "./ws-channel.js";

/** How long a frame the capture received may take to arrive before it counts as missing. */
const RECEIVE_TIMEOUT_MS = 2_000;

export type TimelineEvent =
  | {
      readonly t: number;
      readonly channel: string;
      readonly dir: "sent" | "received";
      readonly frame: Frame;
      /**
       * Bounded wait before this sent frame, for the rare step whose point is that nothing
       * arrives meanwhile (52: no Chunk while the first one is un-Acked).
       */
      readonly quietBeforeMs?: number;
    }
  | { readonly t: number; readonly action: () => Promise<void> };

/** Merges per-channel event lists (each already in wire order) by time; ties keep list order. */
export function mergeByTime(lists: readonly (readonly TimelineEvent[])[]): TimelineEvent[] {
  const cursors = lists.map(() => 0);
  const merged: TimelineEvent[] = [];
  for (;;) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const event = lists[i]?.[cursors[i] ?? 0];
      if (!event) continue;
      const bestEvent = best >= 0 ? lists[best]?.[cursors[best] ?? 0] : undefined;
      if (!bestEvent || event.t < bestEvent.t) best = i;
    }
    if (best < 0) return merged;
    const event = lists[best]?.[cursors[best] ?? 0];
    if (event) merged.push(event);
    cursors[best] = (cursors[best] ?? 0) + 1;
  }
}

export async function playTimeline(
  events: readonly TimelineEvent[],
  channel: (name: string) => Promise<WsChannel>,
): Promise<void> {
  for (const event of events) {
    if ("action" in event) {
      await event.action();
      continue;
    }
    const socket = await channel(event.channel);
    if (event.dir === "sent") {
      if (event.quietBeforeMs) await new Promise((resolve) => setTimeout(resolve, event.quietBeforeMs));
      socket.send(event.frame);
    } else {
      await socket.receive(frameRequestId(event.frame), RECEIVE_TIMEOUT_MS);
    }
  }
}
