/**
 * The MCP server name, kept from the contract so configured clients recognise it. Its own module
 * so that the CLI can name itself without loading the MCP server (`--version`, `--help`).
 */
export const READ_SERVER_NAME = "t3-connector";
