/**
 * `ask-user-bridge init` on a real pseudo-terminal (util-linux `script`), driven with keystrokes, against the fake
 * Bot API: the checklist, the token (never echoed), the /start captured, .env written, and the test question
 * asked through a gateway init starts, answered with a button press.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "dotenv";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { BIN } from "../helpers/cli.ts";
import { freePort } from "../helpers/free-port.ts";
import { tempDir } from "../helpers/temp-dirs.ts";
import { shellQuote } from "../../src/cli/self-command.ts";
import { startFakeTelegram, type FakeTelegram } from "../platforms/telegram/fake-api.ts";

const TOKEN = "123456:AAfake-token-for-the-pty-test-00000000";
const ADA = { id: 101, first_name: "Ada", username: "ada" };
const SCRIPT = "/usr/bin/script";

let fake: FakeTelegram;
const children: ChildProcess[] = [];
beforeAll(async () => {
  fake = await startFakeTelegram();
});
afterAll(() => fake.close());
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** The CLI on a pseudo-terminal: what it printed so far (escape codes and all), keystrokes in, and its exit. */
function onTerminal(args: string[], env: Record<string, string>, cwd: string) {
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(" ");
  const child = spawn(SCRIPT, ["-qfec", command, "/dev/null"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TERM: "xterm", COLUMNS: "200", LINES: "50", ...(process.env.XDG_CONFIG_HOME ? { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME } : {}), ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const plain = () => output.replace(/\x1b\[[0-9;?]*[A-Za-z]/gu, "");
  return {
    output: plain,
    type: (keys: string) => child.stdin!.write(keys),
    async waitFor(pattern: RegExp | string, timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      const found = () => (typeof pattern === "string" ? plain().includes(pattern) : pattern.test(plain()));
      while (!found()) {
        if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${pattern}:\n${plain()}`);
        if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${plain()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    exited,
  };
}

it.skipIf(!existsSync(SCRIPT))(
  "sets Telegram up on a terminal: checklist, hidden token, /start captured, .env written, the test question answered",
  async () => {
    const cwd = tempDir("aub-init-pty-");
    const port = await freePort();
    const term = onTerminal(["init"], { TELEGRAM_API_ROOT: fake.apiRoot, GATEWAY_PORT: String(port), DATA_DIR: join(cwd, "data") }, cwd);

    await term.waitFor("Which platforms should ask you?");
    term.type(" "); // Telegram is first: select it
    term.type("\r");
    await term.waitFor("Telegram bot token");
    term.type(`${TOKEN}\r`);
    await term.waitFor("send it /start");
    fake.type(ADA.id, ADA, "/start");
    await term.waitFor("got /start from @ada (user 101, chat 101)");
    await term.waitFor("Install the Claude Code hook");
    term.type("n\r");
    await term.waitFor("Sent to telegram:101. Answer it on Telegram", 60_000);

    // "Sent" is the gateway's acceptance; the bot delivers it a moment later.
    let prompt = fake.botMessages(ADA.id).find((m) => m.text.includes("Did this question reach you?"));
    for (let i = 0; !prompt && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      prompt = fake.botMessages(ADA.id).find((m) => m.text.includes("Did this question reach you?"));
    }
    expect(prompt, fake.messages().map((m) => m.text).join("\n")).toBeDefined();
    await fake.press(prompt!, 0, ADA);
    await term.waitFor("✓ Answered by user 101: Yes, it works");
    await term.waitFor("Run it for real: `ask-user-bridge start`");
    expect(await term.exited).toBe(0);

    const envFile = join(cwd, ".env");
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(parse(readFileSync(envFile))).toEqual({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_ALLOWED_USERS: "101", ASK_DEFAULT_TARGETS: "telegram:101" });
    // The token was typed into a masked prompt and is never printed back (not even the part after the bot id).
    expect(term.output()).not.toContain(TOKEN.split(":")[1]);
    expect(term.output()).toContain("TELEGRAM_BOT_TOKEN=<hidden>");
  },
  120_000,
);
