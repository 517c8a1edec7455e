/**
 * Issue 36 §2: `ask-user-bridge doctor` against a real gateway with the real Telegram bot connected (the fake Bot
 * API): ✓ for what works, ✗ with a fix for what does not (a refused token, a bot not connected, an API that cannot
 * be reached, a DATA_DIR others can read, a folder whose clients would not find the gateway), exit 1 on any ✗, and
 * the same as JSON. Secrets are never printed.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { main } from "../../src/cli/main.ts";
import { cleanup, freePort, tempDir, TOKEN } from "../helpers/gateway.ts";
import { createTelegramHarness, type TelegramHarness } from "../platforms/telegram/harness.ts";
import { PLATFORM_LIST, PLATFORMS } from "../../src/platforms/descriptors.ts";
import { startFakeDiscord } from "../platforms/discord/fake-api.ts";
import { startFakeSlack } from "../platforms/slack/fake-api.ts";
import { startFakeMattermost } from "../platforms/mattermost/fake-api.ts";
import { startFakeMatrix } from "../platforms/matrix/fake-api.ts";

let h: TelegramHarness;
beforeAll(async () => {
  h = await createTelegramHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
  await cleanup();
});

const TELEGRAM_TOKEN = "123456:TEST-TOKEN-not-real";

async function doctor(argv: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const code = await main(["doctor", ...argv], env, { out: (t) => void (stdout += `${t}\n`), err: (t) => void (stderr += `${t}\n`) });
  return { code, stdout, stderr };
}

describe("ask-user-bridge doctor", { timeout: 60_000 }, () => {
  it("all ✓ where all works: the gateway, the token, the store, the bot connected, its credentials", async () => {
    const env = { GATEWAY_URL: h.gatewayUrl(), GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-doctor-"), TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_ROOT: h.fake.apiRoot };
    const { code, stdout, stderr } = await doctor([], env);
    expect(stderr).toBe("");
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^✓ configuration +read; store: SQLite under .*; bots: telegram$/mu);
    expect(stdout).toMatch(/^✓ gateway +answers at http:\/\/127\.0\.0\.1:\d+$/mu);
    expect(stdout).toMatch(/^✓ token +accepted by the gateway$/mu);
    expect(stdout).toMatch(/^✓ store +ready/mu);
    expect(stdout).toMatch(/^✓ telegram bot +connected to the gateway$/mu);
    expect(stdout).toMatch(/^✓ telegram credentials +accepted by the Bot API: @\w+$/mu);
    expect(stdout).toMatch(/^- GATEWAY_PUBLIC_URL +unset: answer links and the Control UI open only on this machine/mu);
    expect(stdout).not.toContain(TOKEN);
    expect(stdout).not.toContain(TELEGRAM_TOKEN);
  });

  it("✗ with a fix for each problem, exit 1, and the same as JSON", async () => {
    const dataDir = tempDir("aub-doctor-");
    chmodSync(dataDir, 0o755);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const env = {
      GATEWAY_URL: h.gatewayUrl(),
      GATEWAY_TOKEN: "w".repeat(32),
      DATA_DIR: dataDir,
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_API_ROOT: h.fake.apiRoot,
      SLACK_BOT_TOKEN: "xoxb-not-a-real-one",
      SLACK_APP_TOKEN: "xapp-not-a-real-one",
      SLACK_API_URL: `${closed}/api`,
      GATEWAY_PUBLIC_URL: closed,
    };
    const { code, stdout } = await doctor(["--json"], env);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { ok: boolean; checks: Array<{ name: string; status: string; detail: string; fix?: string }> };
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(byName.DATA_DIR).toMatchObject({ status: "fail", detail: expect.stringContaining("readable by others"), fix: expect.stringContaining("chmod 700") });
    expect(byName.token).toMatchObject({ status: "fail", detail: "refused by the gateway (HTTP 401)" });
    expect(byName["slack bot"]).toMatchObject({ status: "fail", detail: "not connected to the gateway", fix: expect.stringContaining("ask-user-bridge bot slack") });
    expect(byName["slack credentials"]).toMatchObject({ status: "fail", detail: expect.stringMatching(/could not be reached \(ECONNREFUSED\)/u) });
    expect(byName["telegram credentials"]).toMatchObject({ status: "ok" });
    expect(byName.GATEWAY_PUBLIC_URL).toMatchObject({ status: "fail", fix: expect.stringContaining("phones") });
    expect(stdout).not.toContain("xoxb-not-a-real-one");
  });

  it("a gateway that is not running is one ✗ that says how to start it", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const { code, stdout } = await doctor([], { GATEWAY_URL: closed, GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-doctor-") });
    expect(code).toBe(1);
    expect(stdout).toMatch(/^✗ gateway +http:\/\/127\.0\.0\.1:\d+ does not answer \(ECONNREFUSED\)\n +fix: start it: `ask-user-bridge start`/mu);
  });

  it("--from DIR: whether a client started there finds the gateway", async () => {
    const project = tempDir("aub-doctor-project-");
    const base = { GATEWAY_URL: h.gatewayUrl(), DATA_DIR: "./data" };
    // The gateway record is this user's (the process's XDG_CONFIG_HOME, as the CLI has it): an empty one here.
    const shared = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = tempDir("aub-doctor-xdg-");
    onTestFinished(() => {
      process.env.XDG_CONFIG_HOME = shared;
    });
    const lost = await doctor(["--from", project, "--json"], base);
    const check = (out: string) => (JSON.parse(out) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.find((c) => c.name === `a client in ${project}`);
    expect(check(lost.stdout)).toMatchObject({ status: "fail", detail: expect.stringContaining("no gateway is recorded for this user") });
    mkdirSync(join(project, "data"));
    writeFileSync(join(project, "data", "gateway-token"), `${TOKEN}\n`, { mode: 0o600 });
    const found = await doctor(["--from", project, "--json"], base);
    expect(check(found.stdout)).toMatchObject({ status: "ok", detail: `finds the token under ${join(project, "data")}` });
  });
});

describe("each platform's credential check, against its fake (which refuses a wrong token as the platform does)", () => {
  it.each([
    ["discord", async () => {
      const fake = await startFakeDiscord({ token: "discord-token" });
      return { env: { DISCORD_BOT_TOKEN: "discord-token", DISCORD_API_URL: fake.apiUrl }, wrong: { DISCORD_BOT_TOKEN: "wrong" }, close: () => fake.close() };
    }],
    ["slack", async () => {
      const fake = await startFakeSlack({ botToken: "xoxb-fake", appToken: "xapp-fake", people: [], channels: [] });
      return { env: { SLACK_BOT_TOKEN: "xoxb-fake", SLACK_API_URL: fake.apiUrl }, wrong: { SLACK_BOT_TOKEN: "xoxb-wrong" }, close: () => fake.close() };
    }],
    ["mattermost", async () => {
      const fake = await startFakeMattermost({ token: "mm-token", people: [], channels: [] });
      return { env: { MATTERMOST_BOT_TOKEN: "mm-token", MATTERMOST_URL: fake.url }, wrong: { MATTERMOST_BOT_TOKEN: "wrong" }, close: () => fake.close() };
    }],
    ["matrix", async () => {
      const fake = await startFakeMatrix({ token: "mx-token" });
      return { env: { MATRIX_ACCESS_TOKEN: "mx-token", MATRIX_HOMESERVER_URL: fake.baseUrl }, wrong: { MATRIX_ACCESS_TOKEN: "wrong" }, close: () => fake.close() };
    }],
  ] as const)("%s", async (surface, start) => {
    const { env, wrong, close } = await start();
    try {
      const platform = PLATFORMS[surface];
      const check = async (vars: Record<string, string>) => {
        const request = platform.credentialCheck!(vars)!;
        const res = await fetch(request.url, { method: request.method ?? "GET", ...(request.headers ? { headers: request.headers } : {}), ...(request.body !== undefined ? { body: request.body } : {}) });
        return request.read(res.status, await res.json().catch(() => undefined));
      };
      expect(await check(env)).toEqual({ who: expect.any(String) });
      expect(await check({ ...env, ...wrong })).toEqual({ why: expect.any(String) });
      expect(platform.credentialCheck!({})).toBeUndefined();
    } finally {
      await close();
    }
  });

  it("the platforms doctor cannot check with one call say so", () => {
    expect(PLATFORM_LIST.filter((p) => !p.credentialCheck).map((p) => p.surface)).toEqual(["whatsapp", "teams", "email"]);
  });
});
