/**
 * @module Fetching a client-id metadata document or a JWKS: HTTPS only, no redirects, at most
 * 5 s and 64 KiB. Injected (I/O), so a test can serve a document without weakening the rules for
 * the real fetcher.
 */
import { ConnectorError } from "@t3-connector/core";
import { readBoundedBody } from "@t3-connector/core/http-edge";

export interface FetchedDocument {
  readonly status: number;
  /** `Cache-Control`, when sent. */
  readonly cacheControl: string | undefined;
  readonly body: string;
}

export type MetadataFetcher = (url: string) => Promise<FetchedDocument>;

export const METADATA_FETCH_LIMITS = Object.freeze({ timeoutMs: 5_000, maxBytes: 64 * 1024 });

/** The real fetcher: global fetch, `redirect: "error"`, the time and size caps above. */
export const httpsMetadataFetcher: MetadataFetcher = async (url) => {
  if (new URL(url).protocol !== "https:") throw unavailable(`${url} is not https`);
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: "error",
      signal: AbortSignal.timeout(METADATA_FETCH_LIMITS.timeoutMs),
      headers: { Accept: "application/json" },
    });
  } catch (error) {
    throw unavailable(`${url} could not be fetched (${error instanceof Error ? error.name : "error"})`);
  }
  const read = await readBoundedBody(response, { maxBytes: METADATA_FETCH_LIMITS.maxBytes });
  if (read.kind === "too_large") throw unavailable(`${url} is larger than 64 KiB`);
  if (read.kind !== "ok") throw unavailable(`${url} could not be read to its end`);
  return {
    status: response.status,
    cacheControl: response.headers.get("cache-control") ?? undefined,
    body: read.bytes.toString("utf8"),
  };
};

export function unavailable(message: string): ConnectorError {
  return new ConnectorError("client_metadata_unavailable", message);
}
