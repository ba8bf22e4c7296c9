/**
 * @module Fetching a client-id metadata document or a JWKS: HTTPS only, no redirects, at most
 * 5 s and 64 KiB. Injected (I/O), so a test can serve a document without weakening the rules for
 * the real fetcher.
 */
import { ConnectorError } from "@t3-connector/core";
import { readBoundedBody } from "@t3-connector/core/http-edge";
import { fetchFailureReason } from "./fetch-failure.js";

export interface FetchedDocument {
  readonly status: number;
  /** `Cache-Control`, when sent. */
  readonly cacheControl: string | undefined;
  readonly body: string;
}

export type MetadataFetcher = (url: string) => Promise<FetchedDocument>;

export const METADATA_FETCH_LIMITS = Object.freeze({ timeoutMs: 5_000, maxBytes: 64 * 1024 });

/**
 * The real fetcher: global fetch, `redirect: "error"`, the time and size caps above (a test may
 * shorten the time). A failure says why: DNS, refused, timeout, TLS, redirect, or size.
 */
export function httpsMetadataFetcherWith(limits: { timeoutMs: number; maxBytes: number }): MetadataFetcher {
  return async (url) => {
    if (new URL(url).protocol !== "https:") throw unavailable(`${url} is not https`);
    let response: Response;
    try {
      response = await fetch(url, {
        redirect: "error",
        signal: AbortSignal.timeout(limits.timeoutMs),
        headers: { Accept: "application/json" },
      });
    } catch (error) {
      throw unavailable(`${url} could not be fetched: ${fetchFailureReason(error, limits.timeoutMs)}`);
    }
    const read = await readBoundedBody(response, { maxBytes: limits.maxBytes });
    if (read.kind === "too_large")
      throw unavailable(`${url} could not be used: size: larger than ${limits.maxBytes / 1024} KiB`);
    if (read.kind !== "ok") throw unavailable(`${url} could not be read to its end: the connection broke`);
    return {
      status: response.status,
      cacheControl: response.headers.get("cache-control") ?? undefined,
      body: read.bytes.toString("utf8"),
    };
  };
}

export const httpsMetadataFetcher: MetadataFetcher = httpsMetadataFetcherWith(METADATA_FETCH_LIMITS);

export function unavailable(message: string): ConnectorError {
  return new ConnectorError("client_metadata_unavailable", message);
}
