import { createGateApp } from "../app/index.js";
import { ApprovalFeed } from "../approval/approval-feed.js";
import { registryInventory } from "../approval/index.js";
import type { GateParts, HumanSide } from "./start-gate.js";

/** The real human side: the approval page, passkeys, approval desk and the in-memory lease. */
export async function gateHumanSide(parts: GateParts): Promise<HumanSide> {
  const gate = await createGateApp({
    port: parts.port,
    clock: parts.clock,
    stateDir: parts.config.stateDir,
    enrollmentCode: parts.enrollmentCode,
    enroll: parts.enroll,
    inventory: registryInventory(parts.registry, { commandSupport: parts.commandSupport }),
    log: parts.log,
    relay: parts.relay,
    audit: parts.audit,
    startupWarnings: parts.startupWarnings,
    ...(parts.config.remoteApproval === undefined
      ? {}
      : { remoteApproval: { ...parts.config.remoteApproval, relayCapability: parts.relayCapability } }),
  });
  return {
    approvalFeed: new ApprovalFeed(gate.events, gate.desk, parts.clock),
    lease: gate.keeper,
    approvals: gate.desk,
    app: gate.app,
    enrolled: () => gate.passkeys.hasAny(),
  };
}
