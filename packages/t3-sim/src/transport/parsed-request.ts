import type { IncomingMessage } from "node:http";

/** One HTTP request as the routes read it: method, URL, headers and the whole body. */
export interface ParsedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}
