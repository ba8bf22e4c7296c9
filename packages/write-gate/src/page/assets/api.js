// The page's only way to the gate: POST + JSON to its own origin. Errors become their typed code.

export class GateError extends Error {
  constructor(code, status) {
    super(code);
    this.code = code;
    this.status = status;
  }
}

/** The gate answers `{ error: "code" }` or `{ error: { code, message } }`. */
function codeFrom(data, status) {
  const error = data?.error;
  if (typeof error === "string") return error;
  if (error && typeof error.code === "string") return error.code;
  return `http_${status}`;
}

export async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body ?? {}),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new GateError(codeFrom(data, response.status), response.status);
  return data;
}

/** The browser library's code (ERROR_CEREMONY_ABORTED, …) or the gate's, never a raw message. */
export function codeOf(error) {
  if (error && typeof error.code === "string") return error.code;
  if (error && error.name === "NotAllowedError") return "passkey_cancelled";
  return error instanceof Error ? error.message : "failed";
}
