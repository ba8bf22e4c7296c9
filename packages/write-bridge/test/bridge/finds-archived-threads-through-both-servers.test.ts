/**
 * Issue 15 / issue 8 item 4: current T3 (and 0.0.31) leave archived threads out of the shell;
 * only the archived shell snapshot lists them. A thread archived through the bridge must still be
 * found, as archived, by the read server's search, archived listing and reads by id, and by the
 * bridge's leased reads through the gate. Everything runs over real sockets against the simulator.
 */

import { readToolDefinitions } from "@t3-connector/read-server";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { readyMirror, threadChanged } from "@t3-connector/test-support/mirror-support";
import { type SimReadSetup, startSimRead } from "@t3-connector/test-support/sim-context";
import { IDLE_THREAD, LEASED_PROJECT, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Body, type BridgeSession, connectBridge, structured } from "../support/bridge-client.js";

const PROFILES = [
  { name: "the default simulator (protocol 2)", profile: {}, readsById: true, shellOmitsArchived: true },
  // The real 0.0.31 captures list archived rows in the shell's `archivedThreads` (fixtures 40, 50,
  // 90), so the profile does too; reads by id go through the full-snapshot fallback (ADR 0009).
  {
    name: "the 0.0.31 profile",
    profile: { compat: "0.0.31" as const },
    readsById: true,
    shellOmitsArchived: false,
  },
];

describe.each(PROFILES)(
  "on $name, a thread archived through the bridge is found as archived by both servers",
  ({ profile, readsById, shellOmitsArchived }) => {
    let h: GateHarness;
    let leaseId = "";
    let bridge: BridgeSession;
    let read: SimReadSetup;

    beforeAll(async () => {
      const world = await startSimWorld(["alpha"], { alpha: profile });
      h = await startGateHarness({ world });
      bridge = await connectBridge({ port: h.gate.port, stateDir: h.world.stateDir });
      read = await startSimRead({
        simulator: { running: world.sim },
        definitions: readToolDefinitions,
        allowedProjects: { alpha: [LEASED_PROJECT] },
      });
    });
    afterAll(async () => {
      await read?.close();
      await bridge?.close();
      await h?.close();
      await h?.world.close();
    });

    it("archives through the bridge; search and the archived listing find it, the active listings do not", async () => {
      // A listing first, so the read server keeps a live shell mirror that sees the archive happen.
      const before = await read.call("t3_threads", { environment: "alpha", includeNoRun: true });
      expect((before.threads as Body[]).map((row) => row.threadId)).toContain(IDLE_THREAD);
      const mirror = await readyMirror(read, "alpha");
      // The mirror follows the archive as T3 streams it (coalesced over ~50 ms): wait for that item.
      const mirrored = threadChanged(mirror, IDLE_THREAD);

      leaseId = await h.grantLease();
      const archived = await bridge.call("t3_escrever_thread_archive", {
        leaseId,
        environment: "alpha",
        operationId: "archive-for-reads",
        input: { threadId: IDLE_THREAD },
      });
      expect(structured(archived)).toMatchObject({ state: "completed", action: "thread.archive" });

      // The premise: the shell itself no longer lists it, as on current T3 and on 0.0.31.
      const shell = h.world.env("alpha").model.httpShell();
      const body = (shell.kind === "ok" ? shell.body : {}) as Record<string, Body[]>;
      const shellIds = [...(body.threads ?? []), ...(body.archivedThreads ?? [])].map((row) => row.id);
      if (shellOmitsArchived) expect(shellIds).not.toContain(IDLE_THREAD);

      const found = await read.call("t3_buscar_threads", { threadId: IDLE_THREAD });
      expect(found).toMatchObject({ total: 1, complete: true });
      expect((found.threads as Body[])[0]).toMatchObject({ threadId: IDLE_THREAD, archived: true });

      const withArchived = structured(
        await bridge.call("t3_threads", { leaseId, environment: "alpha", includeArchived: true }),
      );
      expect(withArchived.threads).toContainEqual(
        expect.objectContaining({ threadId: IDLE_THREAD, archived: true }),
      );
      // The read server's own t3_threads takes the same input and finds it the same way.
      const readWithArchived = await read.call("t3_threads", { environment: "alpha", includeArchived: true });
      expect(readWithArchived.threads).toContainEqual(
        expect.objectContaining({ threadId: IDLE_THREAD, archived: true }),
      );
      const activeOnly = structured(await bridge.call("t3_threads", { leaseId, environment: "alpha" }));
      expect((activeOnly.threads as Body[]).map((row) => row.threadId)).not.toContain(IDLE_THREAD);

      await mirrored;
      const after = await read.call("t3_threads", { environment: "alpha", includeNoRun: true });
      expect((after.threads as Body[]).map((row) => row.threadId)).not.toContain(IDLE_THREAD);
    });

    it.runIf(readsById)(
      "then reads it by id as archived through the read server and the bridge",
      async () => {
        const byId = await read.call("t3_thread", { environment: "alpha", threadId: IDLE_THREAD });
        expect(byId).toMatchObject({ threadId: IDLE_THREAD, archived: true });
        const located = await read.call("t3_thread", { threadId: IDLE_THREAD });
        expect(located).toMatchObject({ threadId: IDLE_THREAD, archived: true });
        const batch = await read.call("t3_thread_read_batch", {
          items: [{ environment: "alpha", threadId: IDLE_THREAD }],
        });
        expect((batch.items as Body[])[0]).toMatchObject({ status: "ok", thread: { archived: true } });

        const leasedThread = await bridge.call("t3_thread", {
          leaseId,
          environment: "alpha",
          threadId: IDLE_THREAD,
        });
        expect(leasedThread.isError).toBeFalsy();
        expect(structured(leasedThread)).toMatchObject({ threadId: IDLE_THREAD, archived: true });
      },
    );
  },
);
