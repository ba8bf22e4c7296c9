/** Argument parsing for `t3-sim`; pure, so the rules are testable without a process. */

export interface ServeArgs {
  readonly command: "serve";
  /** First port; environment i listens on port + i. Absent: free ports. */
  readonly port?: number;
  readonly environments: number;
  readonly seed: "demo" | "empty";
  readonly configOut?: string;
}

export type ParsedArgs =
  | ServeArgs
  | { readonly command: "help" }
  | { readonly command: "version" }
  | { readonly command: "error"; readonly message: string };

export const USAGE = `Usage: t3-sim serve [--port N] [--environments N] [--seed demo|empty] [--config-out DIR]

Starts simulated T3 Code environments on 127.0.0.1 (one port each) and prints one JSON line
{"environments":[{"alias","environmentId","url","readToken","operateToken","pairingCode"}]} on stdout
when ready. pairingCode is single use and valid 5 minutes, like one from \`t3 auth pairing create\`.

  --port N          first port (environment i listens on N+i); default: free ports
  --environments N  how many environments (1-26, default 1), aliases alpha, beta, gamma, ...
  --seed demo|empty initial state (default demo)
  --config-out DIR  write DIR/config.json, DIR/write.json and DIR/tokens/<alias>.{read,operate}.token
  --help            show this text
  --version         print the version

Stops on SIGINT or SIGTERM.
`;

export const ALIASES = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "epsilon",
  "zeta",
  "eta",
  "theta",
  "iota",
  "kappa",
  "lambda",
  "mu",
  "nu",
  "xi",
  "omicron",
  "pi",
  "rho",
  "sigma",
  "tau",
  "upsilon",
  "phi",
  "chi",
  "psi",
  "omega",
  "aleph",
  "beth",
] as const;

export function parseArgs(argv: readonly string[]): ParsedArgs {
  if (argv.includes("--help") || argv.includes("-h") || argv.length === 0) return { command: "help" };
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) return { command: "version" };
  const [command, ...rest] = argv;
  if (command !== "serve") return { command: "error", message: `unknown command: ${command}` };
  let port: number | undefined;
  let environments = 1;
  let seed: "demo" | "empty" = "demo";
  let configOut: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    const value = rest[i + 1];
    if (value === undefined || value.startsWith("--"))
      return { command: "error", message: `${flag} needs a value` };
    i++;
    switch (flag) {
      case "--port": {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || n > 65535)
          return { command: "error", message: `invalid --port: ${value}` };
        port = n;
        break;
      }
      case "--environments": {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || n > ALIASES.length) {
          return { command: "error", message: `invalid --environments: ${value} (1-${ALIASES.length})` };
        }
        environments = n;
        break;
      }
      case "--seed":
        if (value !== "demo" && value !== "empty")
          return { command: "error", message: `invalid --seed: ${value}` };
        seed = value;
        break;
      case "--config-out":
        configOut = value;
        break;
      default:
        return { command: "error", message: `unknown option: ${flag}` };
    }
  }
  if (port !== undefined && port + environments - 1 > 65535)
    return { command: "error", message: "--port too high" };
  return {
    command: "serve",
    environments,
    seed,
    ...(port === undefined ? {} : { port }),
    ...(configOut === undefined ? {} : { configOut }),
  };
}
