/**
 * Parameter names of the old Portuguese contract and their replacements. They are refused like any
 * unknown key; the replacement is only named in the error's hint so a client can correct the call.
 */
export const LEGACY_INPUT_KEYS: Readonly<Record<string, string>> = {
  ambiente: "environment",
  busca: "search",
  limite: "limit",
  estado: "state",
};
