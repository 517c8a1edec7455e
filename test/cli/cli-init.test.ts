/**
 * `ask-user-bridge init` without a terminal (--yes and flags), against the fake Bot API: the .env it writes, the
 * merge and backup, a refused token, Telegram's 409, the platforms whose ids are typed; and the .env writer itself.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "dotenv";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mergeEnvText, quoteEnvValue, readEnvFile } from "../../src/cli/env-file.ts";
import { SETUP_PLATFORMS } from "../../src/cli/init-flags.ts";
import { ENV_KIT } from "../../src/platforms/kit/env.ts";
import { killChildren, spawnCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp-dirs.ts";
import { startFakeTelegram, type FakeTelegram } from "../platforms/telegram/fake-api.ts";

const TOKEN = "123456:AAfake-token-for-init-tests-000000000";
const ADA = { id: 101, first_name: "Ada", username: "ada" };

let fake: FakeTelegram;
beforeAll(async () => {
  fake = await startFakeTelegram();
});
afterAll(() => fake.close());
afterEach(() => killChildren());

function init(args: string[], env: Record<string, string> = {}) {
  const dir = tempDir("aub-init-");
  const envFile = join(dir, ".env");
  const run = spawnCli(["init", "--dotenv", envFile, ...args], { TELEGRAM_API_ROOT: fake.apiRoot, ...env });
  return { dir, envFile, run };
}

describe("init --yes", () => {
  it("writes .env (0600) from flags: the token, the allow-list and the default target; the token never printed", async () => {
    const { envFile, run } = init(["--yes", "--telegram-token", TOKEN, "--telegram-user", "101", "--no-test"]);
    const { code, stdout, stderr } = await run.exited;
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(parse(readFileSync(envFile))).toEqual({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_ALLOWED_USERS: "101", ASK_DEFAULT_TARGETS: "telegram:101" });
    expect(stdout).toContain("accepts the credentials (@ask_bot)");
    expect(stdout).toContain("TELEGRAM_BOT_TOKEN=<hidden>");
    expect(stdout + stderr).not.toContain(TOKEN.split(":")[1]);
  });

  it("captures the chat and user ids from a /start sent to the bot, and confirms that update", async () => {
    fake.type(-1001, { id: 202, first_name: "Grace" }, "hello");
    fake.type(-1001, { id: 202, first_name: "Grace", username: "grace" }, "/start@ask_bot");
    const { envFile, run } = init(["--yes", "--telegram-token", TOKEN, "--no-test"]);
    const { code, stdout } = await run.exited;
    expect(code).toBe(0);
    expect(stdout).toContain("send it /start");
    expect(stdout).toContain("got /start from @grace (user 202, chat -1001)");
    expect(parse(readFileSync(envFile))).toMatchObject({ TELEGRAM_ALLOWED_USERS: "202", ASK_DEFAULT_TARGETS: "telegram:-1001" });
    // The last getUpdates confirmed everything up to the /start: the bot will not see it again.
    const polls = fake.calls.filter((c) => c.method === "getUpdates");
    expect(polls.at(-1)!.body.timeout).toBe(0);
    expect(fake.pendingUpdates()).toBe(0);
  });

  it("says to stop the running bot when Telegram answers 409 to getUpdates", async () => {
    fake.failNext("getUpdates", { error_code: 409, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" });
    const { envFile, run } = init(["--yes", "--telegram-token", TOKEN, "--no-test"]);
    const { code, stdout, stderr } = await run.exited;
    expect(code).toBe(1);
    expect(stdout).toContain("stop the running bot first");
    expect(stderr).toContain("give --telegram-user (and --telegram-chat for a group) instead");
    expect(existsSync(envFile)).toBe(false);
  });

  it("stops with exit 1 and writes nothing when the token is refused", async () => {
    fake.failNext("getMe", { error_code: 401, description: "Unauthorized" });
    const { envFile, run } = init(["--yes", "--telegram-token", TOKEN, "--telegram-user", "101", "--no-test"]);
    const { code, stdout, stderr } = await run.exited;
    expect(code).toBe(1);
    expect(stdout).toContain("refused the credentials (Unauthorized)");
    expect(stderr).toContain("Nothing was written");
    expect(stdout + stderr).not.toContain(TOKEN.split(":")[1]);
    expect(existsSync(envFile)).toBe(false);
  });

  it("merges into an existing .env: comments and other lines kept, its keys replaced, the allow-list extended, a backup made", async () => {
    const envFile = join(tempDir("aub-init-"), ".env");
    const before = [
      "# my settings",
      "GATEWAY_PORT=9999",
      "TELEGRAM_BOT_TOKEN=old-token",
      "",
      "# who may answer",
      "TELEGRAM_ALLOWED_USERS=55",
      'ASK_DEFAULT_TARGETS="telegram:55,web"',
      "LOG_LEVEL=debug # inline comment",
      "",
    ].join("\n");
    writeFileSync(envFile, before, { mode: 0o644 });
    const run = spawnCli(["init", "--dotenv", envFile, "--yes", "--telegram-token", TOKEN, "--telegram-user", "101", "--no-test"], { TELEGRAM_API_ROOT: fake.apiRoot });
    const { code, stdout } = await run.exited;
    expect(code).toBe(0);
    const after = readFileSync(envFile, "utf8");
    expect(after).toContain("# my settings\nGATEWAY_PORT=9999\nTELEGRAM_BOT_TOKEN=");
    expect(after).toContain("# who may answer\nTELEGRAM_ALLOWED_USERS=55,101\n");
    expect(after).toContain("LOG_LEVEL=debug # inline comment");
    expect(parse(after)).toEqual({ GATEWAY_PORT: "9999", TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_ALLOWED_USERS: "55,101", ASK_DEFAULT_TARGETS: "web,telegram:101", LOG_LEVEL: "debug" });
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${envFile}.bak`, "utf8")).toBe(before);
    expect(statSync(`${envFile}.bak`).mode & 0o777).toBe(0o600);
    expect(stdout).toContain(`the previous file is ${envFile}.bak`);
  });

  it("refuses to run without a terminal unless --yes", async () => {
    const { envFile, run } = init(["--telegram-token", TOKEN]);
    const { code, stderr } = await run.exited;
    expect(code).toBe(1);
    expect(stderr).toContain("init: asks its questions on a terminal; without one, give --yes");
    expect(existsSync(envFile)).toBe(false);
  });

  it("asks for a platform, and names unknown ones", async () => {
    expect((await init(["--yes"]).run.exited).stderr).toContain("say which platform: --platform telegram|discord");
    expect((await init(["--yes", "--platform", "email"]).run.exited).stderr).toContain('--platform "email": init sets up telegram');
  });

  it("needs --discord-user for Discord (its messages come only over its gateway WebSocket), saying where to find it", async () => {
    const env = { DISCORD_API_URL: "http://127.0.0.1:1" };
    const missing = await init(["--yes", "--discord-token", "not-checked", "--no-test"], env).run.exited;
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain("could not reach the Discord API at http://127.0.0.1:1");
    expect(missing.stdout).toContain("init cannot see your first message (Discord delivers messages only over its gateway WebSocket");
    expect(missing.stderr).toContain("Discord needs --discord-user (your Discord user id: in Discord, User Settings → Advanced → turn on Developer Mode");

    const bad = await init(["--yes", "--discord-token", "x", "--discord-user", "ada", "--no-test"], env).run.exited;
    expect(bad.stderr).toContain('--discord-user "ada" is not your Discord user id');

    const { envFile, run } = init(["--yes", "--discord-token", "not-checked", "--discord-user", "123456789012345678", "--no-test"], env);
    expect((await run.exited).code).toBe(0);
    expect(parse(readFileSync(envFile))).toEqual({ DISCORD_BOT_TOKEN: "not-checked", DISCORD_ALLOWED_USERS: "123456789012345678", ASK_DEFAULT_TARGETS: "discord:123456789012345678" });
  });

  it("installs the Claude Code hook with --hook --project DIR", async () => {
    const project = tempDir("aub-init-project-");
    const { run } = init(["--yes", "--telegram-token", TOKEN, "--telegram-user", "101", "--hook", "--project", project, "--no-test"]);
    const { code, stdout } = await run.exited;
    expect(code).toBe(0);
    expect(stdout).toContain(`Installed the Claude Code hook in ${project}/.claude/settings.json`);
    const settings = JSON.parse(readFileSync(join(project, ".claude", "settings.json"), "utf8"));
    expect(JSON.stringify(settings.hooks.PermissionRequest)).toContain("hook claude-code");
  });
});

describe("the platforms' set-up facts", () => {
  it.each(SETUP_PLATFORMS.map((p) => [p.surface, p] as const))("%s: captured over plain HTTP, or says why the id is typed", (_name, platform) => {
    const { pairing, vars, allowVar } = platform.setup;
    expect(vars[0]!.name === platform.tokenVar || vars.some((v) => v.name === platform.tokenVar)).toBe(true);
    expect(Object.keys(platform.env(ENV_KIT)).includes(allowVar)).toBe(true);
    expect(Boolean(pairing.capture) !== Boolean(pairing.notCaptured)).toBe(true);
    expect(pairing.user.where.length).toBeGreaterThan(20);
  });

  it("Telegram is captured (getUpdates); Discord, Slack, WhatsApp and Teams are typed", () => {
    const captured = SETUP_PLATFORMS.filter((p) => p.setup.pairing.capture).map((p) => p.surface);
    expect(captured).toContain("telegram");
    for (const typed of ["discord", "slack", "whatsapp", "teams"]) expect(captured).not.toContain(typed);
  });
});

describe(".env values and merging", () => {
  it.each(["plain", "a b", "with#hash", "it's", `say "hi"`, `both ' and "`, "back\\slash", "$HOME", ""])("%j reads back the same through dotenv", (value) => {
    expect(parse(`KEY=${quoteEnvValue(value)}\n`).KEY).toBe(value);
  });

  it("reads a file as dotenv does (init's own reader: src/ loads no dotenv)", () => {
    const file = join(tempDir("aub-init-"), ".env");
    writeFileSync(file, ['# c', 'A=1', 'export B = two words # note', "C='x # y'", 'D="a\\nb"', 'E=`q"r`', 'F="multi', 'line"', 'A=again', 'EMPTY=', ''].join("\n"));
    expect(readEnvFile(file)).toEqual(parse(readFileSync(file)));
  });

  it("refuses a line break", () => {
    expect(() => quoteEnvValue("a\nb")).toThrow(/line break/);
  });

  it("replaces a multi-line value whole, drops a later duplicate, appends new keys under a comment", () => {
    const before = 'A=1\nKEY="line one\nline two"\n# note\nKEY=again\nB=2\n';
    const after = mergeEnvText(before, { KEY: "new", C: "3" }, "added by init");
    expect(after).toBe("A=1\nKEY=new\n# note\nB=2\n\n# added by init\nC=3\n");
  });
});
