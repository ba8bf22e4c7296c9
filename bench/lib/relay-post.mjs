// One `POST /relay` to a gate on 127.0.0.1 with its capability header, answered as parsed JSON
// (keep-alive through the caller's agent). Shared by the benches that time the relay on its own.
import { request } from "node:http";

/** @param {unknown} body @param {{port: number, capability: string, agent: import("node:http").Agent, header: string}} target */
export function relayPost(body, { port, capability, agent, header }) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/relay",
        method: "POST",
        agent,
        headers: {
          host: `localhost:${port}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          [header]: capability,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve(JSON.parse(text)));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
