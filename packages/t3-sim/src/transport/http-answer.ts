/** One HTTP answer, computed first and written after the latency fault. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

const CORS = { "access-control-allow-origin": "*" } as const;

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): HttpAnswer {
  return {
    status,
    headers: { "content-type": "application/json", ...headers, ...CORS },
    body: JSON.stringify(body),
  };
}

export function textAnswer(status: number, contentType: string, body: string): HttpAnswer {
  return { status, headers: { "content-type": contentType, ...CORS }, body };
}

/** Fixture 48: a 404 with no content-type and an empty body. */
export function emptyNotFound(): HttpAnswer {
  return { status: 404, headers: { ...CORS } };
}

/**
 * A request the HTTP API's schema could not decode (protocol header missing or wrong, a required
 * query parameter missing): current upstream answers 400 with an empty body
 * (docs/t3-protocol-notes.md).
 */
export function emptyBadRequest(): HttpAnswer {
  return { status: 400, headers: { ...CORS } };
}

export const NO_STORE = { "cache-control": "no-store" } as const;
