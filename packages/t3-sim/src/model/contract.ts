/**
 * The boundary between the simulator's domain model (state, commands, run engine, projections)
 * and its transport (HTTP routes, auth and scopes, Effect-RPC framing, acks, faults).
 *
 * The transport never builds domain JSON itself, and the model never sees sockets, tokens or
 * HTTP. Everything that crosses this boundary is plain JSON in the wire shapes of T3 Code's
 * Orchestrator V2 (docs/t3-protocol-notes.md and fixtures/t3-0.0.31).
 */

/** Outcome of a unary RPC handled by the model. */
export type RpcOutcome =
  | { readonly kind: "success"; readonly value: unknown }
  /** A typed failure: becomes `Exit Failure [{_tag:"Fail", error}]` on the wire. */
  | { readonly kind: "fail"; readonly error: Record<string, unknown> }
  /** A defect (e.g. payload decode failure): becomes `Exit Failure [{_tag:"Die", defect}]`. */
  | { readonly kind: "die"; readonly defect: string };

/**
 * A live stream opened by the model. The model calls `emit` once per commit with every value of
 * that commit (they travel in one Chunk); the transport applies Ack back-pressure and may merge
 * batches that queued while a Chunk waited for its Ack. `end` finishes the stream (an Exit).
 */
export interface StreamSink {
  emit(values: readonly unknown[]): void;
  /** Ends the stream: success (void) or a typed failure / defect. */
  end(outcome?: Exclude<RpcOutcome, { kind: "success" }>): void;
}

export interface StreamHandle {
  /** Called when the client interrupts or the socket closes; must release every listener. */
  close(): void;
  /**
   * How the real server answers a client `Interrupt` of this stream (fixtures 37, 54-56, 81):
   * `{kind:"interrupt"}` means `Exit Failure [{_tag:"Interrupt", fiberId}]`; a `die` means
   * `Exit Failure [{_tag:"Die", defect}]` (subscribeThread, subscribeServerLifecycle).
   * Absent means `{kind:"interrupt"}`. (Added by the model helper; additive.)
   */
  readonly interruptExit?: { readonly kind: "interrupt" } | { readonly kind: "die"; readonly defect: string };
}

export type StreamOpenResult =
  | { readonly kind: "open"; readonly handle: StreamHandle }
  | Exclude<RpcOutcome, { kind: "success" }>;

/** Outcome of an HTTP read handled by the model. Errors use T3's tagged JSON bodies. */
export type HttpOutcome =
  | { readonly kind: "ok"; readonly body: unknown }
  | { readonly kind: "error"; readonly status: number; readonly body: Record<string, unknown> };

/**
 * One simulated T3 environment's domain. Implemented in `model/`, consumed by `transport/`.
 * Method names are RPC tags exactly as on the wire (`orchestration.dispatchCommand`, …).
 */
export interface EnvironmentModel {
  readonly environmentId: string;
  readonly label: string;
  readonly serverVersion: string;

  /** GET /api/orchestration/shell */
  httpShell(): HttpOutcome;
  /** GET /api/orchestration/threads/:threadId */
  httpThread(threadId: string): HttpOutcome;
  /** GET /api/orchestration/threads/:threadId/bounded */
  httpThreadBounded(threadId: string): HttpOutcome;
  /** GET /api/orchestration/threads/:threadId/history?cursor= */
  httpThreadHistory(threadId: string, cursor: string | undefined): HttpOutcome;
  /** GET /api/projects */
  httpProjects(): HttpOutcome;
  /** POST /api/projects/mutate (body already parsed as JSON) */
  httpProjectsMutate(body: unknown): HttpOutcome;

  /** Unary RPCs (`server.getConfig`, `server.probe`, `orchestration.dispatchCommand`, …). */
  callUnary(tag: string, payload: unknown): Promise<RpcOutcome>;
  /** Stream RPCs (`orchestration.subscribeShell`, `orchestration.subscribeThread`, …). */
  openStream(tag: string, payload: unknown, sink: StreamSink): StreamOpenResult;
  /** Whether `tag` names a stream RPC (the transport needs this before calling). */
  isStreamTag(tag: string): boolean;
  /** Every RPC tag the model knows, unary and stream; anything else is `Unknown request tag`. */
  knownTags(): readonly string[];
  /**
   * How an unknown tag is answered: an `Exit` with its request id (0.0.31, fixture 61), or a
   * top-level `Defect` with none, the socket kept open (0.0.28, fixtures/t3-0.0.28/11 and 14).
   */
  readonly unknownTagAnswer?: UnknownTagAnswer;
}

export type UnknownTagAnswer = "exit" | "connection-defect";

/** The unauthenticated environment descriptor, as the model knows it (before transport faults). */
export interface EnvironmentDescriptor {
  environmentId: string;
  label: string;
  platform: { os: string; arch: string };
  serverVersion: string;
  /** Absent on a transitional V2 server (fixture 01). */
  orchestrationProtocolVersion?: number;
  capabilities: Record<string, unknown>;
}
