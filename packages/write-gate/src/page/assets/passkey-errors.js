// A failed passkey step in words a person can act on. The browser library names a WebAuthn failure
// by a code (ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY, …) that says nothing to a person; its `name` is
// the WebAuthn DOMException's (NotAllowedError, …), which is what tells the cases apart. The gate's
// own refusals come as its typed codes.

const BY_WEBAUTHN_NAME = {
  NotAllowedError:
    "The passkey prompt was closed or timed out, or this device holds no passkey for this gate. Press the button again and pick a passkey registered here. Lost it? Start the gate with `t3-connector-write gate --enroll` and register a new one with the code it prints.",
  AbortError: "The passkey prompt was stopped before it finished. Press the button again.",
  InvalidStateError:
    "This device already holds a passkey for this gate: use that one, or register on another device or security key.",
  SecurityError:
    "The browser refused a passkey for this address. Open the gate at the http://localhost:… link it printed, not 127.0.0.1 or another name.",
  NotSupportedError:
    "This browser or device cannot make the kind of passkey the gate needs. Try another browser, or a security key.",
  ConstraintError:
    "This authenticator cannot check that it is you (PIN, fingerprint or face). Use another device or security key.",
  UnknownError: "The authenticator failed. Press the button again, or use another device.",
};

const BY_GATE_CODE = {
  assertion_invalid:
    "The gate could not verify that passkey. Press the button again and use a passkey registered here.",
  verification_failed:
    "The gate could not verify that passkey. Press the button again and use a passkey registered here.",
  credential_unknown:
    "That passkey is not registered on this gate. Use one listed under Passkeys, or register a new one.",
  challenge_invalid: "The passkey prompt expired. Press the button again.",
  challenge_already_issued:
    "This request already had its one passkey attempt. Ask the client to request approval again.",
  selection_invalid:
    "The gate refused what is ticked. Open the details, check the ticks, and press the button again.",
  enrollment_required: "No passkey is registered yet: register one under Passkeys first.",
  enrollment_code_required: "Type the enrollment code printed on the gate's terminal.",
  enrollment_code_invalid:
    "That enrollment code is wrong or was already used. Type the code the gate printed on its terminal; for a new code, restart it with `t3-connector-write gate --enroll`.",
  registration_invalid: "The gate could not check the new passkey. Press the button again.",
  registration_unknown: "The registration took longer than two minutes. Press the button again.",
  step_up_invalid: "The confirmation with your passkey expired. Press the button again.",
  step_up_required: "Confirm with an existing passkey first: press Add another passkey.",
  too_many_requests:
    "Too many passkey prompts are open at once. Wait two minutes and press the button again.",
  rate_limited: "The page asked the gate too often. Wait a minute and press the button again.",
  lease_already_active: "Another lease opened meanwhile. Revoke it first if this request should replace it.",
};

/** One sentence for a failure of a passkey ceremony or of the gate route around it. */
export function passkeyErrorWords(error) {
  const name = typeof error?.name === "string" ? error.name : "";
  if (name in BY_WEBAUTHN_NAME) return BY_WEBAUTHN_NAME[name];
  const code = typeof error?.code === "string" ? error.code : "";
  if (code === "ERROR_CEREMONY_ABORTED") return BY_WEBAUTHN_NAME.AbortError;
  if (code in BY_GATE_CODE) return BY_GATE_CODE[code];
  if (code.startsWith("ERROR_")) return BY_WEBAUTHN_NAME.UnknownError;
  return `The gate answered "${code || (error instanceof Error ? error.message : "failed")}". Press the button again; if it keeps failing, check the gate's terminal.`;
}
