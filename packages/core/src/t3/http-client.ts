import type { z } from "zod";
import { ConnectorError, isConnectorError } from "../errors.js";
import { AnswerBudget, MAX_T3_ANSWER_BYTES, MAX_T3_ANSWER_BYTES_IN_FLIGHT } from "./capped-body.js";
import { type JsonRequest, requestJson } from "./http-transport.js";
import { nodeHttpFetch, type T3Fetch } from "./node-http-fetch.js";
import {
  type AuthSessionState,
  AuthSessionStateSchema,
  type EnvironmentDescriptor,
  EnvironmentDescriptorSchema,
  type WebSocketTicket,
  WebSocketTicketSchema,
} from "./wire/environment.js";
import {
  type ProjectsSnapshot,
  ProjectsSnapshotSchema,
  ShellProtocolMarksSchema,
  type ShellSnapshot,
  ShellSnapshotSchema,
} from "./wire/shell.js";
import {
  type ThreadBoundedSnapshot,
  ThreadBoundedSnapshotSchema,
  type ThreadHistoryPage,
  ThreadHistoryPageSchema,
  type ThreadSnapshot,
  ThreadSnapshotSchema,
} from "./wire/thread.js";

export const DEFAULT_HTTP_TIMEOUT_MS = 15_000;
export const ORCHESTRATION_PROTOCOL_VERSION = 2;
export const ORCHESTRATION_PROTOCOL_HEADER = "x-t3-orchestration-protocol";

export interface T3HttpClientOptions {
  /** e.g. "http://127.0.0.1:1234"; a path prefix is kept (reverse proxies). */
  baseUrl: string;
  /** Bearer token; never logged and never part of an error message. */
  token?: string;
  /** Per-request deadline, default 15 s. */
  timeoutMs?: number;
  /** One HTTP exchange; default `nodeHttpFetch` (Node's `fetch` is one too). */
  fetch?: T3Fetch;
  /** Largest answer body read, default MAX_T3_ANSWER_BYTES; a larger one is `response_too_large`. */
  maxBodyBytes?: number;
  /**
   * What this client's answers may hold at once while read, default MAX_T3_ANSWER_BYTES_IN_FLIGHT;
   * past it an answer is `response_too_large` too.
   */
  maxBytesInFlight?: number;
  /** The environment's alias, named in errors that must say which environment misbehaved. */
  environment?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

interface RouteSpec {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string>;
  /** Send the bearer token (the descriptor is public and gets none). */
  authenticated: boolean;
  /** Orchestration reads carry `x-t3-orchestration-protocol: 2`. */
  orchestration: boolean;
  /** Set on routes that protocol 2 added: older servers lack them (see route-absence.ts). */
  newerRoute?: NewerRoute;
}

/**
 * Routes a server may lack, whose absence is remembered: the ones protocol 2 added over the first
 * Orchestrator V2 builds (ADR 0009), and `GET /api/projects`, which 0.0.31 has but 0.0.46's route
 * list does not name (ADR 0069).
 */
export type NewerRoute = "thread-bounded" | "thread-history" | "projects";

/** The T3 HTTP surface the connector reads. */
export class T3HttpClient {
  readonly baseUrl: string;
  readonly #token: string | undefined;
  readonly #timeoutMs: number;
  readonly #fetch: T3Fetch;
  readonly #maxBodyBytes: number;
  readonly #budget: AnswerBudget;
  readonly #environment: string | undefined;
  /**
   * Routes this server proved it lacks. A client lives as long as one verified connection (one
   * server version), so the absence is asked once and then answered locally.
   */
  readonly #absentRoutes = new Set<NewerRoute>();

  constructor(options: T3HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    this.#fetch = options.fetch ?? nodeHttpFetch;
    this.#maxBodyBytes = options.maxBodyBytes ?? MAX_T3_ANSWER_BYTES;
    this.#budget = new AnswerBudget(options.maxBytesInFlight ?? MAX_T3_ANSWER_BYTES_IN_FLIGHT);
    this.#environment = options.environment;
  }

  /** The environment's alias this client was built for, when the registry built it. */
  get environment(): string | undefined {
    return this.#environment;
  }

  getDescriptor(o: RequestOptions = {}): Promise<EnvironmentDescriptor> {
    return this.#send(
      { method: "GET", path: "/.well-known/t3/environment", authenticated: false, orchestration: false },
      EnvironmentDescriptorSchema,
      o,
    );
  }

  /** Answers 200 even for a missing or invalid token: check `authenticated` (surprise 2). */
  getAuthSession(o: RequestOptions = {}): Promise<AuthSessionState> {
    return this.#send(
      { method: "GET", path: "/api/auth/session", authenticated: true, orchestration: false },
      AuthSessionStateSchema,
      o,
    );
  }

  getShell(o: RequestOptions = {}): Promise<ShellSnapshot> {
    return this.#send(
      { method: "GET", path: "/api/orchestration/shell", authenticated: true, orchestration: true },
      ShellSnapshotSchema,
      o,
    );
  }

  /**
   * The shell read without its row schema: only what says which protocol the server speaks
   * (`schemaVersion` and the raw rows), so an older server's rows are named, not refused as a shape.
   */
  getShellProtocolMarks(o: RequestOptions = {}): Promise<{ schemaVersion?: unknown; threads?: unknown }> {
    return this.#send(
      { method: "GET", path: "/api/orchestration/shell", authenticated: true, orchestration: true },
      ShellProtocolMarksSchema,
      o,
    );
  }

  getThread(threadId: string, o: RequestOptions = {}): Promise<ThreadSnapshot> {
    return this.#send(
      { method: "GET", path: threadPath(threadId), authenticated: true, orchestration: true },
      ThreadSnapshotSchema,
      o,
    );
  }

  getThreadBounded(threadId: string, o: RequestOptions = {}): Promise<ThreadBoundedSnapshot> {
    return this.#send(
      {
        method: "GET",
        path: `${threadPath(threadId)}/bounded`,
        authenticated: true,
        orchestration: true,
        newerRoute: "thread-bounded",
      },
      ThreadBoundedSnapshotSchema,
      o,
    );
  }

  /** `cursor` is opaque (from `historyCursor` / `nextCursor`); it is passed through unchanged. */
  getThreadHistory(threadId: string, cursor?: string, o: RequestOptions = {}): Promise<ThreadHistoryPage> {
    return this.#send(
      {
        method: "GET",
        path: `${threadPath(threadId)}/history`,
        ...(cursor !== undefined ? { query: { cursor } } : {}),
        authenticated: true,
        orchestration: true,
        newerRoute: "thread-history",
      },
      ThreadHistoryPageSchema,
      o,
    );
  }

  /** `route_absent` on a server without the route (its web page, or a 404); the shell has the projects too. */
  getProjects(o: RequestOptions = {}): Promise<ProjectsSnapshot> {
    return this.#send(
      {
        method: "GET",
        path: "/api/projects",
        authenticated: true,
        orchestration: true,
        newerRoute: "projects",
      },
      ProjectsSnapshotSchema,
      o,
    );
  }

  /** A short-lived ticket for `/ws?wsTicket=`, so the bearer never travels in a URL. */
  createWebSocketTicket(o: RequestOptions = {}): Promise<WebSocketTicket> {
    return this.#send(
      { method: "POST", path: "/api/auth/websocket-ticket", authenticated: true, orchestration: false },
      WebSocketTicketSchema,
      o,
    );
  }

  /** True once this server answered `route` like a server without it. */
  lacksRoute(route: NewerRoute): boolean {
    return this.#absentRoutes.has(route);
  }

  async #send<S extends z.ZodType>(spec: RouteSpec, schema: S, o: RequestOptions): Promise<z.output<S>> {
    const newer = spec.newerRoute;
    if (newer !== undefined && this.#absentRoutes.has(newer)) {
      throw new ConnectorError(
        "route_absent",
        `${spec.method} ${spec.path}: this T3 server does not have the route`,
        {
          details: { route: `${spec.method} ${spec.path}`, remembered: true },
        },
      );
    }
    try {
      return await this.#exchange(spec, schema, o);
    } catch (error) {
      if (newer !== undefined && isConnectorError(error, "route_absent")) this.#absentRoutes.add(newer);
      throw error;
    }
  }

  #exchange<S extends z.ZodType>(spec: RouteSpec, schema: S, o: RequestOptions): Promise<z.output<S>> {
    const url = new URL(`${this.baseUrl}${spec.path}`);
    for (const [key, value] of Object.entries(spec.query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = {};
    if (spec.authenticated && this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (spec.orchestration) headers[ORCHESTRATION_PROTOCOL_HEADER] = String(ORCHESTRATION_PROTOCOL_VERSION);
    const request: JsonRequest = {
      method: spec.method,
      url,
      route: `${spec.method} ${spec.path}`,
      headers,
      timeoutMs: this.#timeoutMs,
      signal: o.signal,
      fetch: this.#fetch,
      maxBodyBytes: this.#maxBodyBytes,
      budget: this.#budget,
      environment: this.#environment,
      ...(spec.newerRoute !== undefined ? { newerRoute: true } : {}),
    };
    return requestJson(request, schema);
  }
}

function threadPath(threadId: string): string {
  return `/api/orchestration/threads/${encodeURIComponent(threadId)}`;
}
