import { request } from "node:http";

export interface HttpAnswer {
  status: number;
  body: unknown;
  text: string;
}

export interface RawRequest {
  port: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * One HTTP request to the gate over a real socket on 127.0.0.1 with every header chosen by the
 * test (an attacker's Host, Origin or method), answering status and parsed JSON.
 */
export function rawRequest(options: RawRequest): Promise<HttpAnswer> {
  const payload = options.body ?? "";
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: options.port,
        path: options.path,
        method: options.method,
        headers: {
          ...(payload === "" ? {} : { "content-length": Buffer.byteLength(payload) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = null;
          try {
            parsed = text === "" ? null : JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * POST JSON to the gate over a real socket on 127.0.0.1 with `Host: localhost:<port>` (what the
 * bridge sends; `fetch` cannot set Host, and `localhost` may resolve to ::1 where nothing listens).
 */
export function postJson(
  port: number,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  return rawRequest({
    port,
    method: "POST",
    path,
    body: payload,
    headers: {
      host: `localhost:${port}`,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(payload)),
      ...headers,
    },
  });
}
