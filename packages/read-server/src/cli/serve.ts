import type { CliIo } from "@t3-connector/core/cli-support";
import { DEFAULT_LOG_LEVEL, type LogLevel, leveledLog } from "@t3-connector/core/cli-support";
import { describeTooLarge, type StdioEnd, serveToolsOnStdio } from "@t3-connector/mcp-tools";
import { packageInfo } from "../package-info.js";
import { takeOverProcess } from "../process-takeover.js";
import { listedReadTools, type ReadTools } from "../read-tool-catalog.js";
import { createReadServer } from "../server.js";
import { READ_SERVER_NAME } from "../server-name.js";
import { prepareServe } from "./serve-setup.js";
import { type StartupGate, startStartupGate } from "./startup-gate.js";

/**
 * `t3-connector serve`: checks the tool list and the config, then serves MCP on stdio until the
 * client closes stdin or a termination signal arrives. Resolves with the exit code.
 *
 * The environments are verified in the background, in parallel, while the session starts:
 * `initialize` and `tools/list` need no environment, and verification takes seconds over an SSH
 * tunnel. Every tool call waits for that check (at most STARTUP_VERIFY_TIMEOUT_MS). A refusal
 * (e.g. a token with any scope beyond `orchestration:read`) is printed as soon as it is known,
 * answers the waiting tool calls with its error (no handler runs), ends the session and exits 1.
 */
export async function serve(
  io: CliIo,
  definitions: ReadTools,
  logLevel: LogLevel = DEFAULT_LOG_LEVEL,
): Promise<number> {
  const log = leveledLog((text) => io.stderr.write(text), logLevel);
  const guard = takeOverProcess(log);
  const fail = (line: string) => {
    log.error(`${READ_SERVER_NAME}: ${line}`);
    guard.dispose();
    return 1;
  };

  const prepared = await prepareServe(io, definitions, log);
  if ("problem" in prepared) return fail(prepared.problem);
  const { config, context } = prepared;

  let openGate: (gate: StartupGate) => void = () => {};
  const gateStarted = new Promise<StartupGate>((resolve) => {
    openGate = resolve;
  });
  // One server per connection of either era (and one for a 2026-07-28 client's `server/discover`
  // probe); all of them share the context and wait on the same start-up check.
  const session = serveToolsOnStdio(
    () =>
      createReadServer(definitions, context, { beforeCall: () => gateStarted.then((gate) => gate.passed) }),
    { log: (line) => log.warn(`${READ_SERVER_NAME}: ${line}`) },
  );
  let ended = false;
  const closed = session.ended.then((end) => {
    ended = true;
    return end;
  });
  const stop = () => void session.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // The client going away closes our stdin; end the session instead of idling forever.
  process.stdin.once("end", stop);

  const aliases = config.environments.map((env) => env.alias).join(", ") || "(none yet)";
  log.info(
    `${READ_SERVER_NAME} ${packageInfo().version}: read-only MCP server on stdio, ${listedReadTools(definitions).length} tools, ` +
      `environments ${aliases} (config ${config.path})`,
  );
  if (config.events !== undefined) {
    // A stdio server lives as long as one client's session: webhooks must not stop with a chat.
    log.info(
      `${READ_SERVER_NAME}: the config's events section is not run by the stdio server; ` +
        "run `t3-connector events` or `t3-connector serve --http` for webhooks",
    );
  }
  // One turn of the event loop first: an `initialize` already waiting on stdin is answered before
  // verification loads the HTTP client and opens sockets.
  await new Promise((resolve) => setImmediate(resolve));
  const gate = startStartupGate(context.registry);
  openGate(gate);
  void gate.done.then((check) => {
    // After the session ended, a pending verification is cut short: no warning about that.
    if (ended || check.refusals.length > 0) return;
    for (const warning of check.warnings) log.warn(`${READ_SERVER_NAME}: warning: ${warning}`);
  });

  const outcome = await Promise.race([closed, gate.refused]);
  const refusal = outcome !== undefined && "error" in outcome ? outcome : undefined;
  if (refusal !== undefined) {
    log.error(`${READ_SERVER_NAME}: refusing to start: ${refusal.error}`);
    // Tool calls waiting on the gate were rejected with the refusal; their error answers are
    // written in the microtasks that follow, before the transport closes.
    await new Promise((resolve) => setImmediate(resolve));
    await session.close();
  }
  const tooLarge = tooLargeEnd(outcome, (line) => log.error(`${READ_SERVER_NAME}: ${line}`));
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  process.stdin.off("end", stop);
  // Ends ssh tunnels and sockets we opened, and aborts verifications still running.
  await context.registry.close();
  guard.dispose();
  return refusal === undefined && tooLarge === undefined ? 0 : 1;
}

/** The session's end when an over-long stdin message ended it, said once to the operator. */
function tooLargeEnd(
  outcome: unknown,
  say: (line: string) => void,
): Extract<StdioEnd, { kind: "message_too_large" }> | undefined {
  const end = outcome as StdioEnd | undefined;
  if (end?.kind !== "message_too_large") return undefined;
  say(describeTooLarge(end.limitBytes));
  return end;
}
