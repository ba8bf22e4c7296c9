/**
 * What `serve --http` says once it listens: the JSON ready line on stdout (the only thing stdout
 * carries) and, on stderr, the human summary, the one-use enrollment code and the warnings.
 */
import type { CliIo, LeveledLog } from "@t3-connector/core/cli-support";
import { packageInfo } from "../package-info.js";
import { READ_SERVER_NAME } from "../server-name.js";
import type { HttpListener } from "./http-listener.js";
import { type HttpServeOptions, MCP_PATH } from "./http-options.js";
import type { HttpServeSetup } from "./serve-http-setup.js";

/** The one line `serve --http` prints on stdout once it listens (t3-sim prints its own the same way). */
export interface HttpReadyLine {
  url: string;
  healthz: string;
  readyz: string;
  auth: "bearer" | "none" | "oauth";
  tools: number;
  environments: string[];
}

export function announceListening(
  io: CliIo,
  log: LeveledLog,
  served: { setup: HttpServeSetup; listener: HttpListener; options: HttpServeOptions; tools: number },
): void {
  const { setup, listener, options, tools } = served;
  const { oauth, config } = setup;
  // With OAuth, clients must use the issuer's name (the Host is pinned to it).
  const url = oauth?.settings.resource ?? `${listener.origin}${MCP_PATH}`;
  const auth = authKind(oauth !== undefined, setup.bearerToken);
  const ready = readyLine(listener.origin, url, auth, tools, config.environments);
  io.stdout.write(`${JSON.stringify(ready)}\n`);
  // What this server serves: the read tools, and the write tools too when sessions may be granted them.
  const serving =
    setup.writes === undefined
      ? `${tools} read tools (reads only)`
      : `${tools} read tools, and the write tools for sessions granted t3:write`;
  log.info(
    `${READ_SERVER_NAME} ${packageInfo().version}: MCP server on ${url} (Streamable HTTP, ` +
      `${AUTH_LABEL[ready.auth]}), ${serving}, ` +
      `environments ${ready.environments.join(", ")} (config ${config.path})`,
  );
  if (oauth !== undefined) {
    log.info(
      `${READ_SERVER_NAME}: OAuth issuer ${oauth.settings.issuer}; clients connect to ${oauth.settings.resource}`,
    );
    log.info(`${READ_SERVER_NAME}: ${writesLine(setup)}`);
    const code = oauth.enrollmentCode();
    // The one secret printed on purpose: only the terminal that runs the server may enroll.
    if (code !== undefined)
      log.warn(`${READ_SERVER_NAME}: no passkey enrolled yet; enrollment code (one use): ${code}`);
  }
  if (isWildcardHost(options.host) && options.allowedHosts.length === 0) {
    log.warn(
      `${READ_SERVER_NAME}: warning: listening on every address of this machine; clients reaching it by ` +
        "another name or address get 403 until it is passed with --allowed-host",
    );
  }
}

/** Whether sessions may write, and where the gate is (or where it was looked for). */
function writesLine(setup: HttpServeSetup): string {
  if (setup.writes !== undefined) {
    const afar =
      setup.approvalForward !== undefined
        ? `; the approval page answers at ${setup.oauth?.settings.issuer}/approve, and the inbox at ${setup.oauth?.settings.issuer}/inbox (passkeys of this sign-in)`
        : `; the approval page answers on localhost only (set remoteApproval.origin to ${setup.oauth?.settings.issuer} in the write config to approve from afar)`;
    return (
      `write tools for sessions granted t3:write, relayed to the gate on port ${setup.writes.config.port} ` +
      `(write config ${setup.writes.config.path}); every lease still needs the passkey on the approval page${afar}`
    );
  }
  const where = setup.gate?.kind === "absent" ? ` at ${setup.gate.path}` : "";
  return `reads only: no write config${where}, so t3:write is not offered`;
}

function authKind(oauth: boolean, bearerToken: string | undefined): HttpReadyLine["auth"] {
  if (oauth) return "oauth";
  return bearerToken === undefined ? "none" : "bearer";
}

function readyLine(
  origin: string,
  url: string,
  auth: HttpReadyLine["auth"],
  tools: number,
  environments: ReadonlyArray<{ alias: string }>,
): HttpReadyLine {
  return {
    url,
    healthz: `${origin}/healthz`,
    readyz: `${origin}/readyz`,
    auth,
    tools,
    environments: environments.map((env) => env.alias),
  };
}

const AUTH_LABEL: Record<HttpReadyLine["auth"], string> = {
  bearer: "bearer token required",
  none: "no token: loopback only",
  oauth: "OAuth session profile",
};

/** `0.0.0.0` or `::`: no client sends that as its Host, so the operator must name the real one. */
function isWildcardHost(host: string): boolean {
  return ["0.0.0.0", "::", "[::]"].includes(host);
}
