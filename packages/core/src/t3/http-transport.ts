import type { z } from "zod";
import { ConnectorError } from "../errors.js";
import {
  type AnswerBudget,
  answerTooLarge,
  budgetSpent,
  type CappedText,
  readCappedText,
} from "./capped-body.js";
import { exchangeDeadline } from "./exchange-deadline.js";
import { fetchFailure, httpErrorFromAnswer, isJsonContentType, safeJson } from "./http-errors.js";
import type { T3Answer, T3Fetch } from "./node-http-fetch.js";
import { routeAbsence } from "./route-absence.js";
import { summarizeIssues } from "./wire/stream-items.js";

export interface JsonRequest {
  method: "GET" | "POST";
  url: URL;
  /** `METHOD /path`, used in error messages (never carries the query string or a credential). */
  route: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  fetch: T3Fetch;
  /** Largest body read; a larger one is `response_too_large` (capped-body.ts). */
  maxBodyBytes: number;
  /** What the environment's answers may hold at once; shared by its client's requests. */
  budget?: AnswerBudget | undefined;
  /** The environment's alias, named in a `response_too_large` error. */
  environment?: string | undefined;
  /**
   * A route a newer protocol added: an answer proving the server lacks it (HTML, a text 503, a
   * 404 that is not T3's `thread_not_found`) is `route_absent` rather than a generic failure.
   */
  newerRoute?: boolean;
}

/**
 * One HTTP exchange that must end in JSON matching `schema`. The per-request deadline and the
 * caller's signal both abort the request. A 2xx answer that is not JSON (a SPA fallback page, a
 * proxy's text page) is `invalid_response`; a non-2xx answer becomes a typed error.
 */
export async function requestJson<S extends z.ZodType>(
  request: JsonRequest,
  schema: S,
): Promise<z.output<S>> {
  const deadline = exchangeDeadline(request.timeoutMs, request.signal);
  const { signal } = deadline;
  let response: T3Answer;
  let read: CappedText;
  try {
    // Called detached: some runtimes refuse a `fetch` invoked with a foreign `this`.
    const send = request.fetch;
    response = await send(request.url, {
      method: request.method,
      headers: { accept: "application/json", ...request.headers },
      ...(request.body !== undefined ? { body: request.body } : {}),
      // A redirect is never expected from T3; with "manual" it surfaces as a 3xx http_error.
      redirect: "manual",
      signal,
    });
    read = await readCappedText(response, request.maxBodyBytes, request.budget);
  } catch (error) {
    throw fetchFailure(request.route, error, deadline.timedOut, request.signal, request.timeoutMs);
  } finally {
    deadline.done();
  }
  if ("refused" in read) {
    if (read.refused === "budget" && request.budget !== undefined) {
      throw budgetSpent(request.environment, request.route, request.budget);
    }
    throw answerTooLarge(request.environment, request.route, request.maxBodyBytes);
  }
  const { text } = read;

  const contentType = response.headers.get("content-type");
  if (request.newerRoute) {
    const absent = routeAbsence(request.route, response.status, contentType, text);
    if (absent) throw absent;
  }
  if (!response.ok) {
    throw httpErrorFromAnswer(request.route, response.status, contentType, text);
  }
  if (!isJsonContentType(contentType)) {
    throw new ConnectorError(
      "invalid_response",
      `${request.route}: expected JSON, got ${contentType ?? "no content-type"} (HTTP ${response.status})`,
      { status: response.status },
    );
  }
  const json = safeJson(text);
  if (json === undefined) {
    throw new ConnectorError("invalid_response", `${request.route}: the JSON body does not parse`, {
      status: response.status,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ConnectorError(
      "invalid_response",
      `${request.route}: unexpected answer shape (${summarizeIssues(parsed.error)})`,
      { status: response.status },
    );
  }
  return parsed.data;
}
