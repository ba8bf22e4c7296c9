/**
 * Sends every `console` line to stderr. Called first by each process whose stdout is a protocol
 * (MCP over stdio) or a machine-read line (the ready line of `serve --http`): a dependency that logs
 * with `console.log` would otherwise corrupt the stream. Library code never uses `console` (a lint
 * rule holds it); this guard covers code we do not own.
 */
export function keepConsoleOffStdout(): void {
  // biome-ignore-start lint/suspicious/noConsole: the one place that rewires console, to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // biome-ignore-end lint/suspicious/noConsole: the one place that rewires console, to stderr.
}
