import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, logCallback, logLevelFrom, redactAlso } from "../../src/runtime/log.ts";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { destination, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe("structured logs", () => {
  it("writes JSON lines naming the process, with an ISO time and a level label", () => {
    const out = capture();
    const logger = createLogger("bot:telegram", { destination: out.destination, level: "info" });
    logger.info({ id: "q1", surface: "telegram" }, "delivered");
    const [line] = out.records();
    expect(line).toMatchObject({ name: "bot:telegram", level: "info", msg: "delivered", id: "q1", surface: "telegram" });
    expect(new Date(String(line!.time)).toISOString()).toBe(line!.time);
  });

  it("keeps debug lines out at info, and in at debug", () => {
    const out = capture();
    createLogger("gateway", { destination: out.destination, level: "info" }).debug("question text");
    expect(out.records()).toHaveLength(0);
    createLogger("gateway", { destination: out.destination, level: "debug" }).debug("question text");
    expect(out.records()).toHaveLength(1);
  });

  it("never writes the deployment's secrets, in messages, fields or errors", () => {
    const out = capture();
    const secret = "123456:AAExampleBotTokenValue-xyz";
    const logger = createLogger("bot:telegram", { destination: out.destination, secrets: [secret, undefined, "short"] });
    const error = new Error(`request to https://api.telegram.org/bot${secret}/sendMessage failed`);
    logCallback(logger)(`retrying with ${secret}`, error);
    logger.info({ url: `https://x/bot${secret}` }, "plain");
    const text = JSON.stringify(out.records());
    expect(text).not.toContain(secret);
    expect(text).toContain("[redacted]");
    const [warned] = out.records();
    expect(warned).toMatchObject({ level: "warn", error: { type: "Error" } });
    expect(String((warned!.error as { message: string }).message)).toContain("/bot[redacted]/sendMessage");
  });

  it("redacts a secret added after the logger was made (a generated token), in its children too, from then on", () => {
    const out = capture();
    const configured = "configured-gateway-token-0123456789";
    const generated = "3f9a2c1e7b4d4e9ab2c61d5f8e3a9b7c0d1e2f3a4b5c6d7e";
    const logger = createLogger("gateway", { destination: out.destination, level: "debug", secrets: [configured] });
    const child = logger.child({ child: "bot:slack" });
    logger.debug(`before: ${generated}`);
    redactAlso(logger, [generated]);
    logger.debug({ question: `the token is ${generated}, or ${configured}` }, "asked: text");
    child.info(`relayed ${generated}`);
    logCallback(logger)("failed", new Error(`bad token ${generated}`));
    const [before, ...after] = out.records();
    expect(before!.msg).toBe(`before: ${generated}`);
    expect(after).toHaveLength(4); // the failure's warning, and the error in full at debug
    expect(JSON.stringify(after)).not.toContain(generated);
    expect(JSON.stringify(after)).not.toContain(configured);
    expect(after[0]).toMatchObject({ question: "the token is [redacted], or [redacted]" });
    expect(after[1]).toMatchObject({ child: "bot:slack", msg: "relayed [redacted]" });
  });

  it("logs a failure as one readable warning, with the stack only at debug (issue 36 §2)", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    const error = new TypeError("fetch failed", { cause });
    for (const level of ["info", "debug"] as const) {
      const out = capture();
      logCallback(createLogger("bot:slack", { destination: out.destination, level }))("cannot reach the Slack API; retrying", error);
      const [warned, full] = out.records();
      expect(warned).toMatchObject({ level: "warn", msg: "cannot reach the Slack API; retrying", error: { type: "TypeError", message: "fetch failed", code: "ECONNREFUSED", cause: "connect ECONNREFUSED 127.0.0.1:9" } });
      expect(JSON.stringify(warned)).not.toContain("    at ");
      if (level === "info") expect(full).toBeUndefined();
      else expect(full).toMatchObject({ level: "debug", err: { type: "TypeError", stack: expect.stringContaining("    at ") } });
    }
  });

  it("refuses an unknown LOG_LEVEL with the list", () => {
    expect(logLevelFrom(undefined)).toBe("info");
    expect(logLevelFrom(" DEBUG ")).toBe("debug");
    expect(() => logLevelFrom("verbose")).toThrow(/LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/u);
  });
});
