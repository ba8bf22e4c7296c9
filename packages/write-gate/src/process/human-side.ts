import { createGateApp } from "../app/index.js";
import { ApprovalFeed } from "../approval/approval-feed.js";
import { type Inventory, registryInventory, registryProjectWriteFacts } from "../approval/index.js";
import type { GateParts, HumanSide } from "./gate-parts.js";

export interface HumanSideSeams {
  /**
   * Wraps the inventory a request runs before it is kept (a test holds one open to race a
   * withdrawal against it); the real one is used as it is when absent.
   */
  readonly inventory?: (real: Inventory) => Inventory;
}

/** The real human side: the approval page, passkeys, approval desk and the in-memory lease. */
export async function gateHumanSide(parts: GateParts, seams: HumanSideSeams = {}): Promise<HumanSide> {
  const inventory = registryInventory(parts.registry, { commandSupport: parts.commandSupport });
  const gate = await createGateApp({
    port: parts.port,
    clock: parts.clock,
    stateDir: parts.config.stateDir,
    enrollmentCode: parts.enrollmentCode,
    enroll: parts.enroll,
    inventory: seams.inventory?.(inventory) ?? inventory,
    projectWriteFacts: registryProjectWriteFacts(parts.registry),
    log: parts.log,
    relay: parts.relay,
    relayBudget: parts.relayBudget,
    audit: parts.audit,
    startupWarnings: parts.startupWarnings,
    inbox: { registry: parts.registry, engine: parts.engine },
    changes: { registry: parts.registry },
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
