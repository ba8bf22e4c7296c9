/**
 * Parameter names of the old Portuguese contract and their replacements. They are refused like any
 * unknown key; the replacement is only named in the error so a client can correct the call.
 */
const LEGACY_INPUT_KEYS: Readonly<Record<string, string>> = {
  ambiente: "environment",
  busca: "search",
  limite: "limit",
  estado: "state",
};

export function legacyKeyHint(key: string): string | undefined {
  return Object.hasOwn(LEGACY_INPUT_KEYS, key) ? LEGACY_INPUT_KEYS[key] : undefined;
}
