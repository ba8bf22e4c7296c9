/** Fault injection for one environment; every field can change while sockets are open. */
export interface FaultSet {
  /** Wall-clock delay before every HTTP answer and every outgoing WebSocket frame. */
  latencyMs?: number;
  /** Accept connections and requests but never answer them (HTTP and WS). */
  hang?: boolean;
  /** Orchestration reads and `/api/auth/session` answer this status with T3's 500 body shape. */
  httpStatus?: number;
  /** The descriptor and `server.getConfig` report this environment id instead of the real one. */
  wrongEnvironmentId?: string;
  /** Every token and ticket is treated as expired. */
  expireTokens?: boolean;
  /** Scopes added to every live token for the session probe and every scope check. */
  extraScopes?: string[];
  /** The next applied dispatchCommand/launchThread destroys its socket before the Exit is sent. */
  dropSocketAfterDispatch?: boolean;
  /**
   * The next applied dispatchCommand/launchThread answers `Exit Failure [Die <this defect>]`
   * instead of its success: the command is applied, the answer is a defect (as when T3 cannot
   * encode its answer). One shot.
   */
  defectAfterDispatch?: string;
  /** Orchestration HTTP reads answer like a misrouted server: the SPA page or the 503 text. */
  nonJsonOrchestration?: "html" | "text";
}

export type HeldKind = "http" | "upgrade" | "frame";

export class FaultController {
  #faults: FaultSet = {};
  readonly #listeners = new Set<() => void>();
  readonly #heldListeners = new Set<(what: HeldKind) => void>();

  get current(): Readonly<FaultSet> {
    return this.#faults;
  }

  /** Merges `partial` into the active faults; a key set to `undefined` removes that fault. */
  set(partial: FaultSet): void {
    const next: FaultSet = { ...this.#faults, ...partial };
    for (const key of Object.keys(next) as (keyof FaultSet)[]) if (next[key] === undefined) delete next[key];
    this.#faults = next;
    this.#notify();
  }

  clear(): void {
    this.#faults = {};
    this.#notify();
  }

  /** Listeners run after every change (paused streams resume when `hang` is lifted). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Observes what the `hang` fault swallows (an HTTP request, an upgrade, a WebSocket frame), so
   * a test can wait for "the server has it and stays silent" instead of sleeping.
   */
  onHeld(listener: (what: HeldKind) => void): () => void {
    this.#heldListeners.add(listener);
    return () => this.#heldListeners.delete(listener);
  }

  /** Called by the transport each time `hang` swallows something. */
  reportHeld(what: HeldKind): void {
    for (const listener of [...this.#heldListeners]) listener(what);
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
