import { startSimulator } from "@t3-connector/t3-sim";
import { captureStreams } from "@t3-connector/test-support/captured-io";
import { writeSimConfig } from "@t3-connector/test-support/sim-config";
import { expect, it } from "vitest";
import { serveHttp } from "../../src/http/serve-http.js";
import type { HttpReadyLine } from "../../src/http/serve-http-announce.js";
import { readToolDefinitions } from "../../src/tools/index.js";
import { rawRequest } from "./support/spawned-http-serve.js";

it("/readyz is 503 while no environment is connected, names the last error, and /healthz stays 200", async () => {
  const sim = await startSimulator({ environments: [{ alias: "gone", seed: "demo" }] });
  const config = await writeSimConfig(sim);
  // The machine goes away before the server starts: nothing can connect.
  await sim.environment("gone").stop();
  const streams = captureStreams({ T3_CONNECTOR_CONFIG: config.configPath });
  let stop: (signal: string) => void = () => {};
  const exitCode = serveHttp(
    streams.io,
    readToolDefinitions,
    { host: "127.0.0.1", port: 0, allowedHosts: [], allowedOrigins: [] },
    { logLevel: "debug", stopSignal: new Promise((resolve) => (stop = resolve)) },
  );
  try {
    const ready = JSON.parse(await streams.stdoutLine()) as HttpReadyLine;
    const origin = new URL(ready.url).origin;
    expect((await rawRequest(`${origin}/healthz`)).status).toBe(200);

    const first = await rawRequest(`${origin}/readyz`);
    expect(first.status).toBe(503);
    expect(JSON.parse(first.body)).toMatchObject({
      status: "not_ready",
      environments: [{ alias: "gone", state: "connecting" }],
    });
    await streams.stderrContains('readyz: environment "gone" did not connect');
    const second = await rawRequest(`${origin}/readyz`);
    expect(second.status).toBe(503);
    const report = JSON.parse(second.body) as { environments: Array<Record<string, unknown>> };
    expect(report.environments[0]).toEqual({
      alias: "gone",
      state: "connecting",
      lastError: expect.stringMatching(/^[a-z_]+$/),
    });
  } finally {
    stop("test end");
    expect(await exitCode).toBe(0);
    await sim.close();
    await config.remove();
  }
});
