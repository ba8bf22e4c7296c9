/**
 * How a server answers a route it does not have. Older T3 builds never answer 404 for a route a
 * newer protocol added: an installed T3 serves its web app (`200 text/html`) for every unknown
 * path, and one run from source answers `503 text/plain`. So absence is
 * decided from the whole answer, and such an answer is never parsed as data.
 */
import { ConnectorError } from "../errors.js";
import { httpErrorFromAnswer, isJsonContentType } from "./http-errors.js";

/**
 * The typed error for an answer that proves `route` absent, or undefined when the answer is an
 * ordinary one (a T3 JSON body, a real `thread_not_found`) that the caller must handle as usual.
 */
export function routeAbsence(
  route: string,
  status: number,
  contentType: string | null,
  text: string,
): ConnectorError | undefined {
  const absent = (said: string) =>
    new ConnectorError("route_absent", `${route}: this T3 server does not have the route (${said})`, {
      status,
      details: { route },
    });
  if (status >= 200 && status < 300) {
    return isJsonContentType(contentType) ? undefined : absent(`HTTP ${status} ${mediaType(contentType)}`);
  }
  if (status === 404) {
    const error = httpErrorFromAnswer(route, status, contentType, text);
    return error.code === "thread_not_found" ? undefined : absent("HTTP 404");
  }
  if (status === 503) {
    // T3's own 503s are tagged JSON; a text or HTML 503 is the static-file fallback.
    const error = httpErrorFromAnswer(route, status, contentType, text);
    return error.t3 === undefined ? absent(`HTTP 503 ${mediaType(contentType)}`) : undefined;
  }
  return undefined;
}

function mediaType(contentType: string | null): string {
  return contentType?.split(";")[0]?.trim() || "no content-type";
}
