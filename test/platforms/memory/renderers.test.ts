/**
 * The in-memory platform shows what Telegram's renderer makes (it runs as the surface "telegram"); Telegram's own
 * renderer cases are in test/platforms/telegram/renderers.test.ts. These check the memory adapter's use of it.
 */
import { describe, expect, it } from "vitest";
import { TELEGRAM_TEXT_MAX } from "../../../src/platforms/telegram/payload.ts";
import { toTelegramText } from "../../../src/platforms/telegram/escaping.ts";
import { chatOf, toMemoryText } from "./adapter.ts";

describe("memory: Telegram's rendering, as the memory platform shows it", () => {
  it("escapes as Telegram does and cuts at Telegram's limit", () => {
    expect(toMemoryText("ping @everyone")).toBe(toTelegramText("ping @everyone"));
    const long = toMemoryText("x".repeat(TELEGRAM_TEXT_MAX + 100));
    expect(long.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
    expect(long.endsWith("…")).toBe(true);
  });

  it("a negative chat id is a group, any other a direct chat", () => {
    expect(chatOf("-1001")).toEqual({ chat: "group" });
    expect(chatOf("101")).toEqual({ chat: "direct" });
  });
});
