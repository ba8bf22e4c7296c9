/**
 * One origin from afar (ADR 0049, 0050): a simulator gate as the CLI runs it with approval from
 * afar on, `serve --http` as the OAuth issuer in front of it, a README proxy on the issuer's port,
 * a client's callback server and headless Chromium. The approval page's and the inbox's tests from
 * afar start the same world.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { launchChromium } from "@t3-connector/test-support/chromium";
import { freePort } from "@t3-connector/test-support/free-port";
import {
  type CallbackServer,
  type OAuthServe,
  startCallbackServer,
  startOAuthServe,
} from "@t3-connector/test-support/oauth-serve";
import { type RealGate, startRealGate } from "@t3-connector/test-support/real-gate";
import type { ReverseProxy } from "@t3-connector/test-support/reverse-proxy";
import type { Page } from "playwright-core";

export interface IssuerWorld {
  readonly issuer: string;
  readonly gate: RealGate;
  readonly serve: OAuthServe;
  readonly proxy: ReverseProxy;
  readonly callback: CallbackServer;
  readonly browser: Awaited<ReturnType<typeof launchChromium>>;
  close(): Promise<void>;
}

export async function startIssuerWorld(
  startProxy: (port: number, upstreamPort: number) => Promise<ReverseProxy>,
): Promise<IssuerWorld> {
  const proxyPort = await freePort();
  const issuer = `http://localhost:${proxyPort}`;
  const oauthStateDir = path.join(await mkdtemp(path.join(os.tmpdir(), "t3c-afar-")), "oauth");
  const [gate, callback, browser] = await Promise.all([
    startRealGate({ remoteApproval: { origin: issuer, oauthStateDir } }),
    startCallbackServer(),
    launchChromium(),
  ]);
  const serve = await startOAuthServe(
    { issuer, stateDir: oauthStateDir },
    { env: { T3_CONNECTOR_WRITE_CONFIG: gate.config.path } },
  );
  const proxy = await startProxy(proxyPort, Number(new URL(serve.ready.healthz).port));
  return {
    issuer,
    gate,
    serve,
    proxy,
    callback,
    browser,
    async close() {
      await browser.close();
      await proxy.close();
      await callback.close();
      await serve.close();
      await gate.close();
      await rm(path.dirname(oauthStateDir), { recursive: true, force: true });
    },
  };
}

/** Waits for the page's status line to say `text`; a different outcome fails with what it says. */
export async function say(page: Page, text: string): Promise<void> {
  const line = page.locator("[data-testid=message]");
  // Waits on the page's own line, not a polling clock. The bound is generous for a busy machine
  // and under the test's own timeout, so a different outcome fails with the words it shows.
  await line
    .filter({ hasText: text })
    .waitFor({ timeout: 15_000 })
    .catch(async (error: unknown) => {
      throw new Error(`the status line says "${await line.textContent()}", not "${text}"`, { cause: error });
    });
}
