import { afterAll, beforeAll, expect, it } from "vitest";
import { startSimRead, type SimReadSetup } from "../support/sim-context.js";
import { t3ThreadTool } from "../../src/tools/t3_thread.js";

let setup: SimReadSetup;
beforeAll(async () => {
  setup = await startSimRead({
    simulator: { environments: [{ alias: "alpha", seed: "demo" }, { alias: "beta", seed: "demo" }] },
    definitions: [t3ThreadTool],
  });
});
afterAll(async () => setup?.close());

function idOf(alias: string, title: string): string {
  const body = setup.sim.environment(alias).model.httpShell() as { body: { threads: Array<{ id: string; title: string }> } };
  return body.body.threads.find((t) => t.title === title)!.id;
}

it("probe", async () => {
  for (const title of ["Choose test scope", "Run the test suite?", "Docs rewrite"]) {
    const out = await setup.call("t3_thread", { environment: "alpha", threadId: idOf("alpha", title) });
    console.log(JSON.stringify(out, null, 1));
  }
  console.log(await setup.callError("t3_thread", { threadId: idOf("alpha", "Docs rewrite") }));
  expect(1).toBe(1);
});
