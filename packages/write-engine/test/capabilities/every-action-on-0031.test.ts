/**
 * On a 0.0.31 server every one of the 44 catalogue actions either runs (its command type is one
 * the server decodes, learned by the harmless probe) or is named unsupported; the probe itself
 * applies nothing. The gate refuses the unsupported ones before the journal (see the gate's
 * relay tests); here each supported action goes through the whole engine exactly once.
 */

import { ABSENT_COMMAND_TYPES_0031 } from "@t3-connector/t3-sim";
import { WALK_PROJECT_ROOT } from "@t3-connector/test-support/action-states";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_IDS, type ActionId } from "../../src/actions/index.js";
import {
  type CommandSupport,
  probeCommandSupport,
  supportedActions,
  unsupportedActions,
} from "../../src/capabilities/index.js";
import { aliasOf, dispatchSeededAction, seedEachAction } from "../dispatch/support/action-per-environment.js";
import { commandsSince, type Harness, startHarness } from "../dispatch/support/harness.js";

/** The catalogue actions whose command type 0.0.31 lacks (the action ids equal the types). */
const UNSUPPORTED_ON_0031: readonly string[] = ABSENT_COMMAND_TYPES_0031;

let inputs: Map<ActionId, Record<string, unknown>>;
let harness: Harness;
let support: CommandSupport;

beforeAll(async () => {
  const aliases = ACTION_IDS.map(aliasOf);
  harness = await startHarness({
    aliases,
    clock: "manual",
    compat: Object.fromEntries(aliases.map((alias) => [alias, "0.0.31" as const])),
    projectRoots: { [aliasOf("project.create")]: [WALK_PROJECT_ROOT] },
  });
  // An action 0.0.31 cannot run cannot be seeded there either (its set-up command would not decode).
  inputs = await seedEachAction(
    harness,
    ACTION_IDS.filter((candidate) => !UNSUPPORTED_ON_0031.includes(candidate)),
  );
  const first = harness.env(aliasOf(ACTION_IDS[0] as ActionId));
  const before = first.model.receivedCommands.length;
  support = await probeCommandSupport(await harness.registry.resolve(first.alias).connect());
  // The probe decodes nothing, so it applies nothing.
  expect(first.model.receivedCommands.length).toBe(before);
});

afterAll(async () => {
  await harness?.close();
});

describe("command support learned from a 0.0.31 server", () => {
  it("lists the server's own 37 command types and names the 9 actions it cannot run", () => {
    expect(support.source).toBe("server_list");
    expect(support.serverVersion).toBe("0.0.31");
    expect(support.acceptedTypes === "all" ? 0 : support.acceptedTypes.size).toBe(37);
    expect([...unsupportedActions(support)].sort()).toEqual(UNSUPPORTED_ON_0031);
    // 35 dispatched commands, plus the 3 project actions sent by projects.mutate (fixtures 100-115).
    expect(supportedActions(support)).toHaveLength(38);
  });

  it.each(ACTION_IDS.filter((action) => !UNSUPPORTED_ON_0031.includes(action)))(
    "%s (supported) runs through the engine once on 0.0.31",
    async (action) => {
      const { env, before, result } = await dispatchSeededAction(harness, inputs, action);
      expect(result).toMatchObject({ state: "completed", replayed: false });
      expect(commandsSince(env, before)).toHaveLength(1);
    },
  );
});

describe("command support of a protocol-2 server", () => {
  it("covers all 47 actions", async () => {
    const current = await startHarness({ aliases: ["current"], clock: "manual" });
    try {
      const found = await probeCommandSupport(await current.registry.resolve("current").connect());
      expect(supportedActions(found)).toEqual([...ACTION_IDS]);
      expect(unsupportedActions(found)).toEqual([]);
    } finally {
      await current.close();
    }
  });
});
