/**
 * The operator's runtime ceiling over a thread's current mode (ADR 0036): under
 * `maxRuntimeMode: approval-required` (what `--max-runtime-mode` sets), a message, a resumed queue
 * or a retried preparation on a thread running in full-access is refused `runtime_mode_above_lease`
 * with nothing sent to the simulator, by the same catalogue rule as the gate; the same message to
 * a thread within the ceiling is sent, and without a ceiling ops sends to any thread as before.
 */

import { EXIT_CODES } from "@t3-connector/core/cli-support";
import { afterEach, describe, expect, it } from "vitest";
import { runOps } from "./support/cli-run.js";
import { connectorFailure } from "./support/connector-failure.js";
import { type SimOps, startSimOps } from "./support/sim-ops.js";

const ONE_ENVIRONMENT = { environments: [{ alias: "alpha" }] };

let setup: SimOps | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** Two idle threads of the first project: one in full-access (T3's default), one that asks first. */
function seedThreads(started: SimOps): { full: string; asking: string } {
  const model = started.env("alpha").model;
  const projectId = started.projectId("alpha", "website");
  const full = model.addThread({ projectId, title: "Runs unattended", state: "completed" });
  const asking = model.addThread({
    projectId,
    title: "Asks before commands",
    state: "completed",
    runtimeMode: "approval-required",
  });
  expect(model.getThread(full)?.shell.runtimeMode).toBe("full-access");
  return { full, asking };
}

describe("ops' runtime ceiling over the thread's current mode", () => {
  it("refuses a message, a queue resume and a preparation retry on a full-access thread, sending nothing", async () => {
    setup = await startSimOps(ONE_ENVIRONMENT, { maxRuntimeMode: "approval-required" });
    const { full } = seedThreads(setup);
    const received = () => setup?.env("alpha").model.receivedCommands.length;
    const before = received();

    const message = await connectorFailure(
      setup.ops.send("alpha", { thread: full, text: "run the tests", messageId: "m-full" }),
    );
    expect(message.code).toBe("runtime_mode_above_lease");
    expect(message.message).toMatch(
      /^thread\.send would drive thread \S+, which runs in full-access, above this ops's ceiling approval-required: .*run ops with --max-runtime-mode full-access\. Nothing was sent\.$/,
    );
    expect(message.details).toMatchObject({ threadId: full, threadRuntimeMode: "full-access" });
    const resume = await connectorFailure(
      setup.ops.act("alpha", "queue.resume", { threadId: full }, { operationId: "resume-1" }),
    );
    expect(resume.code).toBe("runtime_mode_above_lease");
    const retry = await connectorFailure(
      setup.ops.act(
        "alpha",
        "prepared-run.retry",
        { threadId: full, runId: "run-1" },
        { operationId: "retry-1" },
      ),
    );
    expect(retry.code).toBe("runtime_mode_above_lease");
    expect(received()).toBe(before);
  });

  it("sends a message to a thread within the ceiling, and to any thread without a ceiling", async () => {
    setup = await startSimOps(ONE_ENVIRONMENT, { maxRuntimeMode: "approval-required" });
    const { asking } = seedThreads(setup);
    const sent = await setup.ops.send("alpha", {
      thread: asking,
      text: "run the tests",
      messageId: "m-asking",
    });
    expect(sent).toMatchObject({ action: "thread.send", threadId: asking });
    await setup.close();

    setup = await startSimOps(ONE_ENVIRONMENT);
    const { full } = seedThreads(setup);
    const before = setup.env("alpha").model.receivedCommands.length;
    const unlimited = await setup.ops.send("alpha", {
      thread: full,
      text: "run the tests",
      messageId: "m-free",
    });
    expect(unlimited).toMatchObject({ action: "thread.send", threadId: full });
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before + 1);
  });

  it("is what --max-runtime-mode sets on the CLI: a message to a full-access thread exits with the refusal, unsent", async () => {
    setup = await startSimOps(ONE_ENVIRONMENT);
    seedThreads(setup);
    const env = { T3_CONNECTOR_OPS_CONFIG: setup.configPath };
    const before = setup.env("alpha").model.receivedCommands.length;
    const args = ["send", "alpha:Runs unattended", "--message-id", "m-cli"];
    const refused = await runOps([...args, "--max-runtime-mode", "approval-required"], {
      env,
      stdin: "hello",
    });
    expect(refused.code, refused.stderr).toBe(EXIT_CODES.refused);
    expect(refused.stdout).toBe("");
    expect(refused.stderr.split("\n")[0]).toMatch(
      /^t3-connector-ops: runtime_mode_above_lease: thread\.send would drive thread \S+, which runs in full-access, .*--max-runtime-mode full-access/,
    );
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before);
    const allowed = await runOps([...args, "--max-runtime-mode", "full-access"], { env, stdin: "hello" });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(setup.env("alpha").model.receivedCommands.length).toBe(before + 1);
  });
});
