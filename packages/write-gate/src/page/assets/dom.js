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
