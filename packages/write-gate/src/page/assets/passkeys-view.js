// Passkeys by name: the first one with the printed enrollment code, later ones after an
// assertion with an existing passkey, or with the code again when the gate was started with
// `--enroll` (the way back for a person who lost every passkey); removal also needs an assertion.

import { post } from "./api.js";
import { button, byId, clockTime, element } from "./dom.js";

const webauthn = () => window.SimpleWebAuthnBrowser;

/** Why removing a passkey failed, by credential: kept across re-renders of the list. */
const removalErrors = new Map();

export function showPasskeys(state, onRemove) {
  const enrolled = state.enrolled;
  // Older gates do not say; the code then works only for the first passkey.
  const byCode = state.gate?.codeEnrollment ?? !enrolled;
  // Shown while the code works, and when nothing works any more (no passkey, code used).
  byId("enroll-hint").hidden = !byCode && enrolled;
  byId("enroll-hint").textContent = !byCode
    ? "No passkey is registered and the enrollment code was used. Restart the gate with `t3-connector-write gate --enroll` for a new code."
    : enrolled
      ? "Lost your passkey? This gate was started with --enroll: enter the code printed on its terminal to register a new one here, no existing passkey needed."
      : "Enter the enrollment code printed on the gate's terminal to register the first passkey.";
  byId("enroll-code-field").hidden = !byCode;
  byId("enroll-submit").hidden = !byCode;
  byId("enroll-submit").textContent = enrolled ? "Register a new passkey with the code" : "Register passkey";
  byId("add-passkey").hidden = !enrolled;
  const listed = new Set();
  byId("passkey-list").replaceChildren(
    ...state.passkeys.map((passkey) => {
      const id = passkey.credentialId ?? passkey.id;
      listed.add(id);
      const name = passkey.name ?? `${id.slice(0, 16)}…`;
      const item = element("li", undefined, { "data-testid": "passkey", "data-credential": id });
      item.append(element("strong", name), ` added ${clockTime(passkey.createdAt)} `);
      item.append(button("Remove", { "aria-label": `Remove passkey ${name}` }, () => onRemove(id)));
      const failure = removalErrors.get(id);
      if (failure !== undefined) {
        item.append(
          element("p", failure, { class: "inline-error", role: "alert", "data-testid": "remove-error" }),
        );
      }
      return item;
    }),
  );
  for (const id of removalErrors.keys()) if (!listed.has(id)) removalErrors.delete(id);
}

/** Shows `words` under the passkey whose removal failed, until the next attempt. */
export function removalFailed(credentialId, words) {
  removalErrors.set(credentialId, words);
  const item = [...byId("passkey-list").children].find((node) => node.dataset.credential === credentialId);
  if (item === undefined) return;
  item.querySelector(".inline-error")?.remove();
  item.append(element("p", words, { class: "inline-error", role: "alert", "data-testid": "remove-error" }));
}

/** The name typed for the new passkey; the gate trims and bounds it too. */
function passkeyName() {
  const name = byId("passkey-name").value.trim();
  return name === "" ? "passkey" : name.slice(0, 64);
}

export async function enroll(begin) {
  const { registrationId, options } = await post("/api/enrollment/options", {
    ...begin,
    name: passkeyName(),
  });
  const response = await webauthn().startRegistration({ optionsJSON: options });
  await post("/api/enrollment/finish", { registrationId, response });
  byId("passkey-name").value = "";
}

export async function stepUp(body) {
  const { ticketId, options } = await post("/api/passkeys/step-up", body);
  const response = await webauthn().startAuthentication({ optionsJSON: options });
  return { ticketId, response };
}

export async function removePasskey(credentialId) {
  removalErrors.delete(credentialId);
  const proof = await stepUp({ purpose: "remove", credentialId });
  await post("/api/passkeys/remove", { credentialId, ...proof });
}
