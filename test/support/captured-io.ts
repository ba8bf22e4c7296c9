import type { CliIo } from "@t3-connector/core/cli-support";

/** A CliIo whose output a test can wait on: the first stdout line, or a text on stderr. */
export function captureStreams(env: Record<string, string | undefined>) {
  let out = "";
  let err = "";
  const waiters: Array<{ done: () => boolean; resolve: () => void }> = [];
  const check = () => {
    for (const waiter of waiters.filter((w) => w.done())) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const until = (done: () => boolean) =>
    done() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ done, resolve }));
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        out += text;
        check();
      },
    },
    stderr: {
      write: (text: string) => {
        err += text;
        check();
      },
    },
    env,
  };
  return {
    io,
    stderr: () => err,
    stderrContains: (text: string) => until(() => err.includes(text)),
    /** How many times `text` appears on stderr so far. */
    stderrCount: (text: string) => err.split(text).length - 1,
    /** Resolves once `text` appears on stderr at least `times` times. */
    stderrContainsTimes: (text: string, times: number) => until(() => err.split(text).length - 1 >= times),
    /** The first complete stdout line. */
    stdoutLine: async () => {
      await until(() => out.includes("\n"));
      return out.slice(0, out.indexOf("\n"));
    },
  };
}
