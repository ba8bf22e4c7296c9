import { afterEach, beforeEach } from "vitest";
import { type SimOps, startSimOps } from "./sim-ops.js";

/**
 * Registers a fresh simulator and ops config for each test, closed after it, so no test sees
 * another's threads; `ready` hands it to the file's own variables.
 */
export function useSimOpsPerTest(ready: (setup: SimOps) => void): void {
  let setup: SimOps | undefined;
  beforeEach(async () => {
    setup = await startSimOps();
    ready(setup);
  });
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });
}
