import { connect } from "node:net";

/**
 * Sends one keep-alive GET on a raw socket and answers the response's head: what a client or a
 * reverse proxy reads to decide how long it may reuse the connection (`Keep-Alive: timeout=N`).
 */
export function keepAliveResponseHead(port: number, hostHeader: string, path = "/"): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  return new Promise<string>((resolve, reject) => {
    let text = "";
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) resolve(text.slice(0, end));
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: keep-alive\r\n\r\n`);
  }).finally(() => socket.destroy());
}

/** The idle timeout a response head announces, in milliseconds; undefined when it names none. */
export function announcedIdleMs(head: string): number | undefined {
  if (/^connection:\s*close/im.test(head)) return undefined;
  const seconds = /^keep-alive:\s*timeout=(\d+)/im.exec(head)?.[1];
  return seconds === undefined ? undefined : Number(seconds) * 1000;
}
