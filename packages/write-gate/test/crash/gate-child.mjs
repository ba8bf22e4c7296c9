// The crash test's gate process: the BUILT gate (dist), started the way the CLI starts it, plus two
// test-only parts that the CLI never has:
//  - the crash hook, from T3C_GATE_CRASH_AT (the process SIGKILLs itself at that point);
//  - a lease granted without a passkey: a restarted gate starts closed, and driving the passkey
//    ceremony from here would need a browser, so this entry calls the real GateLeaseKeeper's
//    `grant` with a scope built from the live inventory (what the approval desk would offer).
// It prints one JSON line `{port, leaseId}` on stdout once it listens.
import { loadWriteConfig } from "@t3-connector/core/config";
import { EnvironmentRegistry, OPERATE_SCOPES } from "@t3-connector/core/environments";
import { registryInventory, scopeFingerprint } from "../../dist/approval/index.js";
import { crashHookFromEnv, startGate } from "../../dist/process/index.js";

const config = await loadWriteConfig({ path: process.env.T3C_TEST_WRITE_CONFIG });
const journalHook = crashHookFromEnv(process.env);
const gate = await startGate({
  config,
  ...(journalHook === undefined ? {} : { journalHook }),
  // The simulator has no file system: its workspace paths are canonical as given.
  verifyWorkspace: async (_target, path) => path,
});
const registry = new EnvironmentRegistry({
  environments: config.environments,
  requiredScopes: OPERATE_SCOPES,
});
const outcomes = await registryInventory(registry)(undefined);
await registry.close();
const scope = {
  scopeVersion: 2,
  runtimeMode: "full-access",
  environments: outcomes.flatMap((outcome) => (outcome.ok ? [outcome.grant] : [])),
};
const lease = gate.lease.grant({
  scope,
  scopeFingerprint: scopeFingerprint(scope),
  credentialId: "crash-test",
});
process.stdout.write(`${JSON.stringify({ port: gate.port, leaseId: lease.leaseId })}\n`);
await gate.closed;
