/**
 * Every one of the 47 actions, with its sample input, goes through the whole engine against a
 * strict simulator (unknown fields rejected) and lands as exactly one command carrying the
 * commandId derived from the operation key; a repeat with the same operationId sends nothing.
 */

import { WALK_PROJECT_ROOT } from "@t3-connector/test-support/action-states";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_IDS, type ActionId, deriveIds } from "../../src/actions/index.js";
import { aliasOf, dispatchSeededAction, seedEachAction } from "./support/action-per-environment.js";
import { commandsSince, type Harness, startHarness } from "./support/harness.js";

let inputs: Map<ActionId, Record<string, unknown>>;
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    aliases: ACTION_IDS.map(aliasOf),
    clock: "manual",
    projectRoots: { [aliasOf("project.create")]: [WALK_PROJECT_ROOT] },
  });
  inputs = await seedEachAction(harness, ACTION_IDS);
});

afterAll(async () => {
  await harness?.close();
});

/** The command type the simulator records: the catalogue's, or the launch RPC. */
function expectedType(action: ActionId): string {
  if (action === "thread.launch") return "orchestration.launchThread";
  if (action === "thread.title") return "thread.metadata.update";
  if (action === "thread.send") return "message.dispatch";
  if (action === "project.meta.update") return "project.update";
  if (action === "runtime-request.approve" || action === "runtime-request.answer") {
    return "runtime-request.respond";
  }
  return action;
}

async function sendsOneCommandOnce(action: ActionId): Promise<void> {
  const { env, operationId, before, request, result } = await dispatchSeededAction(harness, inputs, action);

  const key = harness.dispatcher.operationKey(env.alias, operationId);
  const ids = deriveIds(key, action, action === "thread.send" ? { clientRequestId: operationId } : {});
  expect(result).toMatchObject({ state: "completed", replayed: false, key });
  const sent = commandsSince(env, before);
  expect(sent.map((command) => [command.type, command.commandId])).toEqual([
    [expectedType(action), ids.commandId],
  ]);
  for (const kind of ["messageId", "threadId", "targetThreadId"] as const) {
    const id = ids[kind];
    if (id !== undefined) expect(JSON.stringify(sent[0]?.payload)).toContain(id);
  }

  const again = await harness.dispatcher.dispatch(request);
  expect(again).toMatchObject({ state: "completed", replayed: true, receipt: result.receipt });
  expect(env.model.receivedCommands.length).toBe(before + 1);
  expect(harness.framesFor(ids.commandId)).toBe(1);
}

describe("every action in the catalogue", () => {
  it.each([...ACTION_IDS])(
    "%s sends exactly one command the strict simulator accepts, once",
    sendsOneCommandOnce,
  );
});
