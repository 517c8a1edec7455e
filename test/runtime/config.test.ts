import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "dotenv";
import { describe, expect, it } from "vitest";
import { BOT_SECRETS, ConfigError, configSchema, loadConfig } from "../../src/runtime/config.ts";
import { PLATFORM_LIST } from "../../src/platforms/descriptors.ts";
import { ENV_KIT } from "../../src/platforms/kit/env.ts";

const example = parse(readFileSync(join(import.meta.dirname, "..", "..", ".env.example")));

describe("configuration", () => {
  it(".env.example documents every variable, and nothing else", () => {
    expect(Object.keys(example).sort()).toEqual(Object.keys(configSchema.shape).sort());
  });

  it.each(PLATFORM_LIST.map((p) => [p.surface, p] as const))("%s: its descriptor's variables are in the schema and .env.example, its secrets in BOT_SECRETS", (_name, platform) => {
    const variables = Object.keys(platform.env(ENV_KIT));
    expect(Object.keys(configSchema.shape)).toEqual(expect.arrayContaining(variables));
    expect(Object.keys(example)).toEqual(expect.arrayContaining(variables));
    expect(variables).toEqual(expect.arrayContaining([...platform.secrets, platform.tokenVar, ...platform.portVars]));
    expect(BOT_SECRETS).toEqual(expect.arrayContaining([...platform.secrets]));
  });

  it(".env.example as written is a valid configuration with the documented defaults", () => {
    const config = loadConfig(example);
    expect(config).toMatchObject({ GATEWAY_HOST: "127.0.0.1", GATEWAY_PORT: 8787, DATA_DIR: "./data", STORE: "sqlite", DELIVERY_TIMEOUT_SECONDS: 30, SLACK_PORT: 3000 });
    expect(config.GATEWAY_TOKEN).toBeUndefined();
    expect(config.ASK_DEFAULT_TARGETS).toEqual([]);
  });

  it("the default ports differ: `npm start` runs every configured bot beside the gateway on one machine", () => {
    const config = loadConfig({}) as Record<string, unknown>;
    const names = ["GATEWAY_PORT", ...PLATFORM_LIST.flatMap((p) => p.portVars)];
    const clashes = names.filter((name, i) => names.some((other, j) => j !== i && config[other] === config[name]));
    expect(names.length).toBeGreaterThan(3);
    expect(clashes).toEqual([]);
  });

  it("an empty environment is valid (npm start on a fresh machine)", () => {
    expect(loadConfig({}).GATEWAY_PORT).toBe(8787);
  });

  it.each([
    [{ GATEWAY_PORT: "abc" }, "GATEWAY_PORT"],
    [{ GATEWAY_PORT: "70000" }, "GATEWAY_PORT"],
    [{ GATEWAY_TOKEN: "short" }, "GATEWAY_TOKEN"],
    [{ GATEWAY_TOKEN: "a".repeat(31) }, "GATEWAY_TOKEN"],
    [{ GATEWAY_MAX_CONNECTIONS: "0" }, "GATEWAY_MAX_CONNECTIONS"],
    [{ GATEWAY_MAX_CONNECTIONS: "many" }, "GATEWAY_MAX_CONNECTIONS"],
    [{ GATEWAY_TRUSTED_PROXIES: "localhost" }, "GATEWAY_TRUSTED_PROXIES"],
    [{ GATEWAY_TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/33" }, "GATEWAY_TRUSTED_PROXIES"],
    [{ GATEWAY_TRUSTED_PROXIES: "127.0.0.1:8080" }, "GATEWAY_TRUSTED_PROXIES"],
    [{ GATEWAY_URL: "not a url" }, "GATEWAY_URL"],
    [{ STORE: "postgres" }, "STORE"],
    [{ DELIVERY_TIMEOUT_SECONDS: "-1" }, "DELIVERY_TIMEOUT_SECONDS"],
    [{ ASK_DEFAULT_TARGETS: "telegram" }, "ASK_DEFAULT_TARGETS"],
    [{ ASK_DEFAULT_TARGETS: "irc:#chan" }, "ASK_DEFAULT_TARGETS"],
    [{ TELEGRAM_ALLOWED_USERS: "12, bad id" }, "TELEGRAM_ALLOWED_USERS"],
    [{ TELEGRAM_WEBHOOK_SECRET: "has spaces" }, "TELEGRAM_WEBHOOK_SECRET"],
    [{ REMIND_BEFORE_SECONDS: "5m" }, "REMIND_BEFORE_SECONDS"],
    [{ REMIND_BEFORE_SECONDS: "600,-1" }, "REMIND_BEFORE_SECONDS"],
    [{ REMIND_BEFORE_SECONDS: "1,2,3,4,5,6" }, "REMIND_BEFORE_SECONDS"],
    [{ LATE_ANSWER_SECONDS: "-1" }, "LATE_ANSWER_SECONDS"],
    [{ LATE_ANSWER_SECONDS: "604801" }, "LATE_ANSWER_SECONDS"],
  ])("%j is refused naming %s", (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}:`));
  });

  it("GATEWAY_TRUSTED_PROXIES: addresses and CIDR ranges, IPv4 and IPv6; a wrong entry is named", () => {
    expect(loadConfig({}).GATEWAY_TRUSTED_PROXIES).toEqual([]);
    expect(loadConfig({ GATEWAY_TRUSTED_PROXIES: " 127.0.0.1, ::1,10.0.0.0/8 , fd00::/8," }).GATEWAY_TRUSTED_PROXIES).toEqual(["127.0.0.1", "::1", "10.0.0.0/8", "fd00::/8"]);
    expect(() => loadConfig({ GATEWAY_TRUSTED_PROXIES: "127.0.0.1, proxy.lan" })).toThrow(/GATEWAY_TRUSTED_PROXIES: "proxy.lan" is not an IP address or CIDR range/);
    expect(() => loadConfig({ GATEWAY_TRUSTED_PROXIES: "::/129" })).toThrow(/GATEWAY_TRUSTED_PROXIES: "::\/129": the prefix length must be 0 to 128/);
  });

  it("a GATEWAY_TOKEN under 32 characters is refused with how to make a good one; 32 are accepted", () => {
    expect(() => loadConfig({ GATEWAY_TOKEN: "a".repeat(31) })).toThrow(/GATEWAY_TOKEN: must be at least 32 characters.*openssl rand -hex 32/);
    expect(loadConfig({ GATEWAY_TOKEN: "a".repeat(32) }).GATEWAY_TOKEN).toBe("a".repeat(32));
    expect(loadConfig({}).GATEWAY_MAX_CONNECTIONS).toBe(1_000);
  });

  it.each([
    [{}, undefined, 86_400],
    [{ REMIND_BEFORE_SECONDS: "120, 600,120" }, [600, 120], 86_400],
    [{ REMIND_BEFORE_SECONDS: "none", LATE_ANSWER_SECONDS: "0" }, [], 0],
    [{ REMIND_BEFORE_SECONDS: "0", LATE_ANSWER_SECONDS: "3600" }, [], 3_600],
  ])("when nobody answers: %j → reminders %j, late window %j", (env, reminders, late) => {
    const config = loadConfig(env);
    expect(config.REMIND_BEFORE_SECONDS).toEqual(reminders);
    expect(config.LATE_ANSWER_SECONDS).toBe(late);
  });

  it("names every bad variable at once", () => {
    try {
      loadConfig({ GATEWAY_PORT: "x", STORE: "y" });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems.map((p) => p.split(":")[0])).toEqual(["GATEWAY_PORT", "STORE"]);
    }
  });

  it("parses targets and allow-lists", () => {
    const config = loadConfig({ ASK_DEFAULT_TARGETS: "telegram:-1001234567890:42+77, slack:C0123ABCD,web", DISCORD_ALLOWED_USERS: "1, 2" });
    expect(config.ASK_DEFAULT_TARGETS).toEqual([
      { surface: "telegram", chat: "-1001234567890", users: ["42", "77"] },
      { surface: "slack", chat: "C0123ABCD" },
      { surface: "web" },
    ]);
    expect(config.DISCORD_ALLOWED_USERS).toEqual(["1", "2"]);
  });
});
