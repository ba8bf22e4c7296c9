/**
 * One HTTP request to the gate over a real socket on 127.0.0.1 with every header chosen by the
 * test (an attacker's Host, Origin or method), answering status and parsed JSON.
 */
import { request } from "node:http";
import type { HttpAnswer } from "../../support/http.js";

export interface RawRequest {
  port: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

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
