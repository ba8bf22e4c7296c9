/**
 * How a refusal is written into a journal record and read back for a replay. A journal error has
 * only `{code, message}`, so the code carries two parts: `<ErrorCode>/<detail>`, where the detail is
 * the guard's reason (`guard_refused/thread_pending_request`) or T3's error tag
 * (`t3_refused/OrchestrationV2DispatchCommandError`). The message never holds message text.
 */
import { ConnectorError, ERROR_CODES, type ErrorCode, type T3ErrorDetail } from "@t3-connector/core";
import type { JournalError, JournalRecord } from "../journal/index.js";

const T3_CODE_SEPARATOR = " | t3 code: ";

export function journalErrorOf(error: ConnectorError): JournalError {
  if (error.code === "t3_refused") {
    const tag = error.t3?.tag ?? "unknown";
    const code = error.t3?.code === undefined ? "" : `${T3_CODE_SEPARATOR}${error.t3.code}`;
    return { code: `t3_refused/${tag}`, message: `${error.message}${code}` };
  }
  const reason = error.details?.reason;
  return {
    code: typeof reason === "string" && reason !== error.code ? `${error.code}/${reason}` : error.code,
    message: error.message,
  };
}

function isErrorCode(value: string): value is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(value);
}

/** The ConnectorError a replay of a `refused` record throws (state and `sent: false|true` in details). */
export function errorFromRefusedRecord(record: JournalRecord): ConnectorError {
  const stored = record.error ?? { code: "internal", message: "refused without a recorded reason" };
  const slash = stored.code.indexOf("/");
  const head = slash === -1 ? stored.code : stored.code.slice(0, slash);
  const detail = slash === -1 ? undefined : stored.code.slice(slash + 1);
  const code: ErrorCode = isErrorCode(head) ? head : "internal";
  let t3: T3ErrorDetail | undefined;
  let message = stored.message;
  if (code === "t3_refused") {
    t3 = { tag: detail ?? "unknown" };
    const at = message.lastIndexOf(T3_CODE_SEPARATOR);
    if (at !== -1) {
      t3.code = message.slice(at + T3_CODE_SEPARATOR.length);
      message = message.slice(0, at);
    }
  }
  return new ConnectorError(code, message, {
    ...(t3 === undefined ? {} : { t3 }),
    details: {
      state: "refused",
      replayed: true,
      operationId: record.operationId,
      ...(detail !== undefined && code !== "t3_refused" ? { reason: detail } : {}),
    },
  });
}
