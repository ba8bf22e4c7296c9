// Small DOM helpers. Every value from the gate goes in as text (textContent), never as HTML.

export const byId = (id) => document.getElementById(id);

export function element(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes ?? {})) node.setAttribute(name, value);
  return node;
}

/** A checkbox inside its own <label>, so clicking or tabbing to the words works too. */
export function checkbox(labelParts, attributes, checked) {
  const wrapper = element("label", undefined, { class: "check" });
  const input = element("input", undefined, { type: "checkbox", ...attributes });
  input.checked = checked;
  const words = element("span", undefined, { class: "check-words" });
  for (const part of labelParts) words.append(part);
  wrapper.append(input, words);
  return wrapper;
}

export function button(text, attributes, onClick) {
  const node = element("button", text, { type: "button", ...attributes });
  node.addEventListener("click", onClick);
  return node;
}

/** "14:03:22" in the person's own locale and time zone. */
export function clockTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleTimeString();
}

/** "4:07" for a number of milliseconds, rounded up: "0:00" only once the time is over. */
export function minutesSeconds(ms) {
  const total = Math.ceil(Math.max(0, ms) / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

/** Words beside the control the person pressed (a `p.inline-error` placed next to it). */
export function showInlineError(id, text) {
  const line = byId(id);
  line.textContent = text;
  line.hidden = false;
}

export function clearInlineError(id) {
  const line = byId(id);
  line.textContent = "";
  line.hidden = true;
}

/**
 * An action id or mode (`thread.runtime-mode.set`) that a narrow screen may wrap only after a dot,
 * never inside a word or at its hyphens: each dotted part is unbreakable, with a break chance
 * (<wbr>) after each dot. Its text stays the id itself, for comparing with what the client named.
 */
export function identifier(id) {
  const code = element("code", undefined, { class: "action-id" });
  id.split(".").forEach((part, index, parts) => {
    const last = index === parts.length - 1;
    code.append(element("span", last ? part : `${part}.`));
    if (!last) code.append(document.createElement("wbr"));
  });
  return code;
}

/**
 * How the page names a client: an OAuth session of `serve --http` by its client and sign-in time
 * ("ChatGPT, signed in 5:02 PM"), a bridge's client by its own word (name and version).
 */
export function clientLabel(client) {
  if (client.signedInAt) {
    const date = new Date(client.signedInAt);
    const time = Number.isNaN(date.getTime())
      ? String(client.signedInAt)
      : date.toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });
    return `${client.name}, signed in ${time}`;
  }
  return client.version ? `${client.name} ${client.version}` : client.name;
}
