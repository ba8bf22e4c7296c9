/**
 * docs/webhook-receiver.md, run as written: its shell blocks and its receiver.mjs are read from the
 * page (so the page cannot drift from what works), run in a fresh HOME against the simulator, and
 * an event must reach the receiver and be printed by it.
 *
 * What the test fills in, and only that: a free port instead of 8787 (the machine is shared), a
 * `t3-connector` on PATH that runs the built CLI, the read config of the simulator, and — since
 * tests do not download — the workspace's own copy of `standardwebhooks` linked where
 * `npm install standardwebhooks` would put it.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DocRecipeHome, recipeBlocks } from "@t3-connector/test-support/doc-recipe";
import { freePort } from "@t3-connector/test-support/free-port";
import { addThread, type SimEvents, startRun, startSimEvents } from "@t3-connector/test-support/sim-events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DOC = fileURLToPath(new URL("../../../docs/webhook-receiver.md", import.meta.url));
const NPM_INSTALL = "npm install standardwebhooks";

let simEvents: SimEvents;
let recipe: DocRecipeHome;

beforeAll(async () => {
  simEvents = await startSimEvents();
  recipe = await DocRecipeHome.create("t3-webhook-recipe-", {
    T3_CONNECTOR_CONFIG: simEvents.simConfig.configPath,
  });
});

afterAll(async () => {
  await recipe?.close();
  await simEvents?.close();
});

describe("docs/webhook-receiver.md", () => {
  it("works as written: the receiver verifies and prints an event the connector sends", async () => {
    const { setup, connect, script } = await recipeBlocks(DOC);
    const port = String(await freePort());
    const withPort = (text: string) => text.replaceAll("8787", port);
    const lines = withPort(setup)
      .split("\n")
      .filter((line) => line.trim() !== "");
    const serverIndex = lines.findIndex((line) => line.includes("node receiver.mjs"));
    expect(serverIndex, "the recipe starts the receiver with node receiver.mjs").toBeGreaterThan(0);
    expect(setup, `the recipe installs the package with ${NPM_INSTALL}`).toContain(NPM_INSTALL);

    // The steps before the receiver starts, as one script run from HOME (the recipe's cd included).
    const directory = await recipe.runSetup(lines.slice(0, serverIndex), {
      command: NPM_INSTALL,
      resolveFrom: new URL("../package.json", import.meta.url).href,
    });
    expect(directory).toBe(path.join(recipe.home, "t3-hook"));
    // "save receiver.mjs (below)"
    await writeFile(path.join(directory, "receiver.mjs"), withPort(script));

    const server = recipe.background((lines[serverIndex] ?? "").replace(/#.*$/, "").trim(), directory);
    await server.line(new RegExp(`listening on http://127.0.0.1:${port}/hook`));

    const connector = recipe.background(withPort(connect).trim(), directory);
    await connector.line(/following "alpha"/);

    const threadId = addThread(simEvents.env, "Recipe check");
    await startRun(simEvents.env, threadId, { reply: "done" });
    simEvents.env.clock.advance(1_000);
    expect(await server.line(/^run\.completed on alpha\//)).toContain('"Recipe check"');
    expect(connector.seen.join("\n")).not.toContain("token_file_invalid");
  });
});
