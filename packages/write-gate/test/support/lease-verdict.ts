/**
 * What the engine decides of one lease stage from the facts the gate's keeper hands it (ADR 0063):
 * the tests of the keeper and of the page ask the same rule the engine applies to every write.
 */
import type { Clock } from "@t3-connector/core";
import { type LeaseRequest, LeaseRule, type LeaseVerdict } from "@t3-connector/write-engine/engine";
import type { LeaseKeeper } from "../../src/contract.js";

export function leaseVerdict(
  keeper: Pick<LeaseKeeper, "facts">,
  clock: Clock,
  request: LeaseRequest & { readonly leaseId: string },
): LeaseVerdict {
  const { leaseId, ...stage } = request;
  return new LeaseRule(clock).verdict(keeper.facts(leaseId), leaseId, stage);
}
