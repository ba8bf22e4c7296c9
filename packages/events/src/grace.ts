/**
 * The grace period of what waits on the person (ADR 0073): an event that says something waits (an
 * agent's request, a client's lease request) is held a short while before its first attempt, and
 * when the event that says it no longer waits arrives within that while, neither is sent. A
 * question answered at the desk ten seconds after it was asked never buzzes a phone.
 *
 * Both events of a pair name the same item: the agent's request in its thread and environment, or
 * the gate's lease request. Nothing else is held.
 */
import type { AnyWebhookEvent } from "./event-types.js";

export interface GraceRole {
  /** The waiting item both events of a pair name. */
  item: string;
  /** `waits`: the event announces the item; `ends`: it says the item no longer waits. */
  role: "waits" | "ends";
}

const WAITING_THREAD_EVENTS = new Set(["thread.needs_approval", "thread.needs_input", "thread.needs_secret"]);

/** The item an event announces or ends, or undefined for an event the grace period never holds. */
export function graceRoleOf(event: AnyWebhookEvent): GraceRole | undefined {
  if (event.type === "approval.requested" || event.type === "approval.decided") {
    const request = (event.data as { request?: { id?: unknown } }).request;
    const requestId = typeof request?.id === "string" ? request.id : undefined;
    if (requestId === undefined) return undefined;
    return { item: `lease:${requestId}`, role: event.type === "approval.requested" ? "waits" : "ends" };
  }
  if (!("thread" in event.data)) return undefined;
  const { environment, thread, request } = event.data;
  if (request === undefined) return undefined;
  const item = `request:${environment.id}:${thread.id}:${request.id}`;
  if (WAITING_THREAD_EVENTS.has(event.type)) return { item, role: "waits" };
  if (event.type === "thread.request_resolved") return { item, role: "ends" };
  return undefined;
}
