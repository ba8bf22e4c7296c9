import { type CliIo, readAll, type TerminalPrompt } from "../cli-support/index.js";
import { ConnectorError } from "../errors.js";
import { parsePairingInput } from "../t3/index.js";

/**
 * Several pairing codes for one command (a read token and an operate token for the same machine).
 * A T3 pairing code is spent by its first exchange, so each token needs its own code. On a
 * terminal each code is asked for by name; a piped stdin carries one code per line, in the order
 * of `purposes` (each line a code, its pairing URL or the one-line JSON of `t3 auth pairing create`).
 * Every code is parsed before any is spent.
 */
export async function readPairingCodes(
  io: Pick<CliIo, "stdin" | "stderr">,
  purposes: readonly string[],
  prompt?: TerminalPrompt,
): Promise<string[]> {
  if (prompt !== undefined) {
    const codes: string[] = [];
    for (const purpose of purposes) {
      codes.push(parsePairingInput(await prompt.ask(`Pairing code or pairing URL for ${purpose}: `)));
    }
    return codes;
  }
  if (io.stdin === undefined) {
    throw new ConnectorError("invalid_input", "the pairing codes are read from stdin, one per line");
  }
  if ((io.stdin as { isTTY?: boolean }).isTTY) {
    io.stderr.write(
      `Paste ${purposes.length} pairing codes (or their URLs), one per line, in this order: ${purposes.join("; ")}. ` +
        "Then press Ctrl-D. They stay visible on the terminal; piping them in avoids that.\n",
    );
  }
  const lines = (await readAll(io.stdin)).split(/\r?\n/).filter((line) => line.trim() !== "");
  if (lines.length !== purposes.length) {
    throw new ConnectorError(
      "invalid_input",
      `stdin carries ${lines.length} non-empty line(s), but this needs ${purposes.length} pairing codes, ` +
        `one per line, in this order: ${purposes.join("; ")}. No code was used`,
    );
  }
  return lines.map((line) => parsePairingInput(line));
}
