/**
 * The attack of issue 37 §6 as a raw-socket SMTP client: guess EMAIL_INBOUND_AUTH with AUTH PLAIN, as fast as the
 * listener answers, over several connections at once, opening a new one whenever the listener closes one.
 */
import { connect, type Socket } from "node:net";

/** One SMTP connection: `reply()` is the next final reply line (multi-line replies end with `NNN `), or "closed". */
export function openSmtp(port: number, localAddress?: string) {
  const socket: Socket = connect({ host: "127.0.0.1", port, ...(localAddress ? { localAddress } : {}) });
  socket.setEncoding("utf8");
  const replies: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buffer = "";
  let closed = false;
  const push = (line: string) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else replies.push(line);
  };
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\r\n"); end !== -1; end = buffer.indexOf("\r\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (/^\d{3}(?: |$)/u.test(line)) push(line);
    }
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    closed = true;
    for (const waiter of waiters.splice(0)) waiter("closed");
  });
  const reply = () => (replies.length ? Promise.resolve(replies.shift()!) : closed ? Promise.resolve("closed") : new Promise<string>((resolve) => waiters.push(resolve)));
  return {
    reply,
    send(line: string) {
      if (!closed) socket.write(`${line}\r\n`);
      return reply();
    },
    close: () => socket.destroy(),
  };
}

export const authPlain = (user: string, pass: string) => `AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`).toString("base64")}`;

/**
 * Guesses passwords for `user` on `connections` connections at once until `ms` have passed, then drops every
 * connection (a guess still waiting for its answer goes with it). Resolves to the answers the guesses got.
 */
export async function guessLogins({ port, user, connections, ms }: { port: number; user: string; connections: number; ms: number }): Promise<string[]> {
  const answers: string[] = [];
  const deadline = Date.now() + ms;
  const open = new Set<ReturnType<typeof openSmtp>>();
  let guess = 0;
  const stop = new Promise<void>((resolve) => setTimeout(resolve, ms));
  async function worker() {
    while (Date.now() < deadline) {
      const smtp = openSmtp(port);
      open.add(smtp);
      if (!(await smtp.reply()).startsWith("220") || !(await smtp.send("EHLO guesser.example")).startsWith("250")) break;
      for (;;) {
        const answer = await smtp.send(authPlain(user, `guess-${guess++}`));
        if (answer === "closed") break;
        answers.push(answer);
        if (!answer.startsWith("535")) break;
      }
      smtp.close();
      open.delete(smtp);
    }
  }
  const workers = Promise.all(Array.from({ length: connections }, worker));
  await stop;
  for (const smtp of open) smtp.close();
  await workers;
  return answers;
}
