// Passkeys by name: the first one with the printed enrollment code, later ones after an
// assertion with an existing passkey; removal also needs an assertion.

import { post } from "./api.js";
import { button, byId, clockTime, element } from "./dom.js";

const webauthn = () => window.SimpleWebAuthnBrowser;

export function showPasskeys(state, onRemove) {
  const enrolled = state.enrolled;
  byId("enroll-hint").hidden = enrolled;
  byId("enroll-code-field").hidden = enrolled;
  byId("enroll-submit").hidden = enrolled;
  byId("add-passkey").hidden = !enrolled;
  byId("passkey-list").replaceChildren(
    ...state.passkeys.map((passkey) => {
      const id = passkey.credentialId ?? passkey.id;
      const name = passkey.name ?? `${id.slice(0, 16)}…`;
      const item = element("li", undefined, { "data-testid": "passkey", "data-credential": id });
      item.append(element("strong", name), ` added ${clockTime(passkey.createdAt)} `);
      item.append(button("Remove", { "aria-label": `Remove passkey ${name}` }, () => onRemove(id)));
      return item;
    }),
  );
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
  const proof = await stepUp({ purpose: "remove", credentialId });
  await post("/api/passkeys/remove", { credentialId, ...proof });
}
