/**
 * @module The gate's in-process nudges for the approval page: the approval desk,
 * the lease keeper and the relay's write rows publish here; `GET /api/events` relays them as
 * server-sent events. An event only says "something changed, read POST /api/state again": the
 * state route stays the truth, so a lost event costs a moment, never a wrong picture.
 */

/** What a write looks like on the page: ids, labels and outcome only, never message text. */
export interface WriteRow {
  /** The lease the write was made under. */
  readonly leaseId: string;
  readonly at: string;
  readonly environmentAlias: string;
  readonly threadId?: string;
  readonly threadTitle?: string;
  readonly action: string;
  readonly actionLabel: string;
  /** `completed`, `refused`, `uncertain` (the journal's words). */
  readonly outcome: string;
  readonly operationId: string;
}

export type GateEvent =
  | { readonly type: "request"; readonly data: { readonly requestId: string } }
  | {
      readonly type: "decision";
      /** `withdrawn`: its session ended; `superseded`: a new ask replaced it, or every lease was closed. */
      readonly data: {
        readonly requestId: string;
        readonly outcome: "approved" | "denied" | "expired" | "withdrawn" | "superseded";
      };
    }
  | {
      readonly type: "lease";
      readonly data: { readonly leaseId: string; readonly state: "open" | "closed" };
    }
  | { readonly type: "write"; readonly data: { readonly row: WriteRow } }
  | { readonly type: "passkeys"; readonly data: Record<string, never> }
  | { readonly type: "warnings"; readonly data: Record<string, never> };

export type GateEventListener = (event: GateEvent) => void;

export class GateEvents {
  readonly #listeners = new Set<GateEventListener>();
  #departures: Array<() => void> = [];

  /** Returns the unsubscribe function. */
  subscribe(listener: GateEventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      if (!this.#listeners.delete(listener)) return;
      const waiting = this.#departures;
      this.#departures = [];
      for (const resolve of waiting) resolve();
    };
  }

  /** Resolves when the next listener leaves (a page's stream closed): lets a caller wait, not poll. */
  nextDeparture(): Promise<void> {
    return new Promise((resolve) => this.#departures.push(resolve));
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  publish(event: GateEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // One broken stream must not keep the others (or the publisher) from going on.
      }
    }
  }
}
