/**
 * `orchestration.dispatchCommand`: decode, idempotency receipts, handler, typed failure.
 *
 * Receipts are keyed on commandId (fixtures 31/32): a repeat on the same thread answers the
 * original sequence with no new events, even when the repeat is a different command, and a
 * commandId that was rejected fails again with the same error. The same commandId on another
 * thread fails as a conflict (T3's text for it is unknown, see receipts.ts).
 */
import type { RpcOutcome } from "../contract.js";
import { DomainError, dispatchCommandError } from "../errors.js";
import type { CommandContext, CommandHandler } from "./context.js";
import * as lineage from "./lineage-handlers.js";
import * as newer from "./newer-handlers.js";
import { commandThreadOf, previouslyRejected, type Receipt, receiptConflict } from "./receipts.js";
import * as runs from "./run-handlers.js";
import { CommandDecoder, type DecodedCommand } from "./schemas.js";
import * as threads from "./thread-handlers.js";

export interface ReceivedCommand {
  readonly commandId: string;
  readonly type: string;
  readonly payload: unknown;
  readonly sequence: number;
}

const HANDLERS: Record<string, CommandHandler> = {
  "thread.create": threads.threadCreate,
  "thread.archive": threads.threadArchive,
  "thread.unarchive": threads.threadUnarchive,
  "thread.delete": threads.threadDelete,
  "thread.settle": threads.threadSettle,
  "thread.auto-settle": threads.threadAutoSettle,
  "thread.unsettle": threads.threadUnsettle,
  "thread.snooze": threads.threadSnooze,
  "thread.unsnooze": threads.threadUnsnooze,
  "thread.pin": threads.threadPin,
  "thread.unpin": threads.threadUnpin,
  "thread.pin.reorder": threads.threadPinReorder,
  "thread.active.reorder": threads.threadActiveReorder,
  "thread.auto-settle.set": threads.threadAutoSettleSet,
  "thread.visit": threads.threadVisit,
  "thread.mark-unread": threads.threadMarkUnread,
  "thread.metadata.update": threads.threadMetadataUpdate,
  "thread.title.regeneration.complete": threads.threadTitleRegenerationComplete,
  "thread.runtime-mode.set": threads.threadRuntimeModeSet,
  "thread.interaction-mode.set": threads.threadInteractionModeSet,
  "thread.model-selection.set": threads.threadModelSelectionSet,
  "thread.pull-request.link": threads.pullRequestLink,
  "thread.pull-request.unlink": threads.pullRequestUnlink,
  "provider.switch": threads.providerSwitch,
  "provider-session.detach": runs.providerSessionDetach,
  "message.dispatch": runs.messageDispatch,
  "prepared-run.release": runs.preparedRunRelease,
  "prepared-run.progress": runs.preparedRunProgress,
  "prepared-run.fail": runs.preparedRunFail,
  "run.interrupt": runs.runInterrupt,
  "queue.resume": runs.queueResume,
  "queued-message.promote-to-steer": runs.promoteToSteer,
  "queued-run.reorder": runs.queuedRunReorder,
  "queued-run.cancel": runs.queuedRunCancel,
  "queued-run.edit": runs.queuedRunEdit,
  "runtime-request.respond": runs.runtimeRequestRespond,
  "thread.user-input.dismiss": runs.userInputDismiss,
  "checkpoint.rollback": runs.checkpointRollback,
  "thread.fork": lineage.threadFork,
  "thread.merge_back": lineage.threadMergeBack,
  "delegated_task.request": lineage.delegatedTaskRequest,
  "delegated_task.wake-policy": lineage.delegatedTaskWakePolicy,
  "delegated_task.completion-delivery.acknowledge": lineage.delegatedTaskAcknowledge,
  "delegated_task.completion-delivery.dispose": lineage.delegatedTaskDispose,
  "thread.created.record": lineage.threadCreatedRecord,
  "prepared-run.retry": newer.preparedRunRetry,
  "thread.pull-request.watch": newer.pullRequestWatch,
  "thread.pull-request-link.sync": newer.pullRequestLinkSync,
  "thread.pull-request.sync": newer.pullRequestSync,
  "notification.delivery.accept": newer.notificationDeliveryAccept,
};

export class CommandDispatcher {
  readonly received: ReceivedCommand[] = [];
  readonly #receipts = new Map<string, Receipt>();
  readonly #decoder: CommandDecoder;

  constructor(
    private readonly ctx: CommandContext,
    strict: boolean,
  ) {
    this.#decoder = new CommandDecoder(strict);
  }

  dispatch(payload: unknown): RpcOutcome {
    const decoded = this.#decoder.decode(payload);
    if (!decoded.ok) return { kind: "die", defect: decoded.defect };
    const command = decoded.value;
    const thread = commandThreadOf(payload);
    const receipt = this.#receipts.get(command.commandId);
    if (receipt && receipt.threadId !== thread) {
      return {
        kind: "fail",
        error: receiptConflict(command.commandId, command.type, receipt.threadId, thread, this.ctx.newer),
      };
    }
    if (receipt) return this.#answer(receipt, this.ctx.newer);
    const handler = HANDLERS[command.type];
    if (!handler) return { kind: "die", defect: `Unhandled command type ${command.type}` };
    const outcome = this.#run(handler, command, thread);
    this.#receipts.set(command.commandId, outcome);
    if (outcome.kind === "accepted") {
      this.received.push({
        commandId: command.commandId,
        type: command.type,
        payload,
        sequence: outcome.sequence,
      });
    }
    return this.#answer(outcome);
  }

  /** Lets other entry points (launchThread, project mutations) share receipts and the log. */
  record(commandId: string, type: string, payload: unknown, sequence: number): void {
    this.#receipts.set(commandId, { kind: "accepted", sequence, threadId: commandThreadOf(payload) });
    this.received.push({ commandId, type, payload, sequence });
  }

  #run(handler: CommandHandler, command: DecodedCommand, threadId: string | null): Receipt {
    try {
      return { kind: "accepted", sequence: handler(this.ctx, command), threadId };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return {
        kind: "rejected",
        error: dispatchCommandError(command.commandId, command.type, error),
        threadId,
      };
    }
  }

  /** A repeat of a refused commandId: current upstream names it previously rejected. */
  #answer(receipt: Receipt, repeat = false): RpcOutcome {
    if (receipt.kind === "accepted") return { kind: "success", value: { sequence: receipt.sequence } };
    return { kind: "fail", error: repeat ? previouslyRejected(receipt.error) : receipt.error };
  }
}
