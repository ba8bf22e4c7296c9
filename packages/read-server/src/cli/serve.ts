import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { DEFAULT_LOG_LEVEL, type LogLevel, leveledLog } from "@t3-connector/core/cli-support";
import { packageInfo } from "../package-info.js";
import { takeOverProcess } from "../process-takeover.js";
import type { ReadToolDefinition } from "../read-tool.js";
import { createReadServer, READ_SERVER_NAME } from "../server.js";
import type { CliIo } from "./io.js";
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
  definitions: readonly ReadToolDefinition[],
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
  const server = createReadServer(definitions, context, {
    beforeCall: () => gateStarted.then((gate) => gate.passed),
  });
  const transport = new StdioServerTransport();
  let ended = false;
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => {
      ended = true;
      resolve();
    };
  });
  const stop = () => void server.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // The client going away closes our stdin; end the session instead of idling forever.
  process.stdin.once("end", stop);

  await server.connect(transport);
  const aliases = config.environments.map((env) => env.alias).join(", ") || "(none yet)";
  log.info(
    `${READ_SERVER_NAME} ${packageInfo().version}: read-only MCP server on stdio, ${definitions.length} tools, ` +
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

  const refusal = await Promise.race([closed.then(() => undefined), gate.refused]);
  if (refusal !== undefined) {
    log.error(`${READ_SERVER_NAME}: refusing to start: ${refusal.error}`);
    // Tool calls waiting on the gate were rejected with the refusal; their error answers are
    // written in the microtasks that follow, before the transport closes.
    await new Promise((resolve) => setImmediate(resolve));
    await server.close();
  }
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  process.stdin.off("end", stop);
  // Ends ssh tunnels and sockets we opened, and aborts verifications still running.
  await context.registry.close();
  guard.dispose();
  return refusal === undefined ? 0 : 1;
}
