import type { HttpAnswer } from "./http-answer.js";
import { textAnswer } from "./http-answer.js";
import { SPA_FALLBACK_TEXT, SPA_HTML_PAGE } from "./http-bodies.js";

/**
 * What a T3 server answers to a GET no route of its HTTP API matches (ADR 0009;
 * 0.0.31's catch-all static route): an installed T3 serves its web app's `index.html` for any
 * path, a T3 run from source without a web build answers 503 text/plain. Either way, never a 404.
 */
export type SpaFallback = "web-build" | "no-web-build";

export function spaFallbackAnswer(fallback: SpaFallback): HttpAnswer {
  return fallback === "web-build"
    ? textAnswer(200, "text/html; charset=utf-8", SPA_HTML_PAGE)
    : textAnswer(503, "text/plain", SPA_FALLBACK_TEXT);
}
