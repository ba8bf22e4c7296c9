/**
 * The host's look, from its context (`hostContext.theme` and `hostContext.styles.variables`):
 * only CSS custom properties with plain names, and values without anything that could end the
 * declaration, are applied; board.css reads them with its own defaults behind.
 */
const NAME = /^--[a-z0-9-]{1,64}$/;
const UNSAFE_VALUE = /[;{}<>]|url\(/i;

export function applyHostStyle(context: unknown): void {
  if (typeof context !== "object" || context === null) return;
  const { theme, styles } = context as { theme?: unknown; styles?: { variables?: unknown } };
  const root = document.documentElement;
  if (theme === "light" || theme === "dark") root.style.setProperty("color-scheme", theme);
  const variables = styles?.variables;
  if (typeof variables !== "object" || variables === null) return;
  for (const [name, value] of Object.entries(variables)) {
    if (!NAME.test(name) || typeof value !== "string") continue;
    if (value.length > 200 || UNSAFE_VALUE.test(value)) continue;
    root.style.setProperty(name, value);
  }
}
