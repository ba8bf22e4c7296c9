import { ConnectorError } from "@t3-connector/core";
import { LIFT_UNKNOWN_LOSS_COMMAND, RECOVER_COMMAND } from "./damage.js";
import type { LostKey, LostOperation, Manifest, UnknownLoss } from "./manifest.js";

/**
 * What an operator accepted to lose (`journal recover --accept-loss`), kept in the manifest:
 * - named keys (a lost segment's keys come from the manifest; an altered record's from its file):
 *   a reserve of one of them is refused until its `until`;
 * - unknown losses (the active segment, or a manifest that listed the segments, is gone): the
 *   journal cannot prove it never saw ANY operation it does not hold, so every such reserve is
 *   refused until that loss's `until`, or until an operator lifts it after checking T3
 *   (`journal accept-unknown-loss --checked-t3`). Keys the journal does hold are unaffected;
 * - lost operations: what the audit log named as dispatched before a lifted unknown loss, by
 *   environment and operationId: still refused until their `until`.
 * `until` is the recovery time plus the retention: by then an intact journal would have forgotten
 * a settled record too, and an expired operationId is new again (ADR 0006 §6).
 */
export class LostRegister {
  readonly #keys = new Map<string, LostKey>();
  #operations: LostOperation[];
  #unknown: UnknownLoss[];

  constructor(manifest: Pick<Manifest, "lostKeys" | "lostOperations" | "unknownLosses">) {
    for (const lost of manifest.lostKeys) this.#keys.set(lost.key, lost);
    this.#operations = [...manifest.lostOperations];
    this.#unknown = [...manifest.unknownLosses];
  }

  /** Unknown losses still refusing every operationId the journal does not hold. */
  unknownInForce(now: number): readonly UnknownLoss[] {
    return this.#unknown.filter((loss) => loss.until > now);
  }

  /** The refusal for a reserve of `key`, which the journal does not hold; null when it may proceed. */
  refusal(
    key: string,
    operation: { environmentId: string; operationId: string },
    now: number,
  ): ConnectorError | null {
    const { operationId } = operation;
    const named = this.#keys.get(key);
    if (named !== undefined && named.until > now) {
      return new ConnectorError(
        "operation_lost",
        `operationId ${operationId} was in ${named.file}, lost and accepted as lost on ${iso(named.recoveredAt)}: ` +
          "it may already have been sent, so it is never sent again; check T3 and use a new operationId for a new write",
        { details: { operationId, reason: "lost_record", file: named.file, until: iso(named.until) } },
      );
    }
    const audited = this.#operations.find(
      (lost) =>
        lost.until > now &&
        lost.operationId === operationId &&
        lost.environmentId === operation.environmentId,
    );
    if (audited !== undefined) {
      return new ConnectorError(
        "operation_lost",
        `operationId ${operationId} was dispatched before the journal lost its record (the audit log names it): ` +
          "it may already have been sent, so it is never sent again; check T3 and use a new operationId for a new write",
        { details: { operationId, reason: "lost_record", file: "audit.log", until: iso(audited.until) } },
      );
    }
    const unknown = this.#unknown.find((loss) => loss.until > now);
    if (unknown !== undefined) {
      return new ConnectorError(
        "operation_lost",
        `the journal lost records it cannot name (${unknown.files.join(", ")}, accepted on ${iso(unknown.recoveredAt)} ` +
          `with ${RECOVER_COMMAND}), so it cannot prove operationId ${operationId} was never sent and refuses it. ` +
          "A person must check T3 for the writes made before the loss, then run " +
          `\`${LIFT_UNKNOWN_LOSS_COMMAND}\` at the gate; a new operationId does not help until then ` +
          `(the refusal ends on its own at ${iso(unknown.until)})`,
        { details: { operationId, reason: "unknown_loss", files: unknown.files, until: iso(unknown.until) } },
      );
    }
    return null;
  }

  /** Drop what expired; answers whether anything did (the manifest is then rewritten). */
  expire(now: number): boolean {
    let changed = false;
    for (const [key, lost] of this.#keys) {
      if (lost.until <= now) {
        this.#keys.delete(key);
        changed = true;
      }
    }
    const before = this.#unknown.length + this.#operations.length;
    this.#unknown = this.#unknown.filter((loss) => loss.until > now);
    this.#operations = this.#operations.filter((lost) => lost.until > now);
    return changed || this.#unknown.length + this.#operations.length !== before;
  }

  toManifest(): Pick<Manifest, "lostKeys" | "lostOperations" | "unknownLosses"> {
    return {
      lostKeys: [...this.#keys.values()],
      lostOperations: [...this.#operations],
      unknownLosses: [...this.#unknown],
    };
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
