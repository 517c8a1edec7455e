/**
 * The WhatsApp bot's pacing parts on their own: the per-recipient pace, the webhook signature. (The throughput's cell
 * rate, a generic part, is tested with the kit: test/bots/kit/pacer.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { createWhatsAppPacer } from "../../../bots/whatsapp/pacing.ts";
import { signatureOf } from "../../../bots/whatsapp/webhook.ts";
import { parseTemplateSetting } from "../../../bots/whatsapp/adapter.ts";

describe("whatsapp: pacing", () => {
  it("one recipient's sends go at once up to the burst, then at the pace, one at a time; another recipient is not held up", async () => {
    const pacer = createWhatsAppPacer({ perSecond: 10, burst: 2 }, { perSecond: 1_000, burst: 1_000 });
    const t0 = performance.now();
    const at: { a: number[]; b: number[] } = { a: [], b: [] };
    const send = (who: "a" | "b") => pacer.run(who, async () => void at[who].push(performance.now() - t0));
    await Promise.all([send("a"), send("a"), send("a"), send("a"), send("b")]);
    expect(at.a.slice(0, 2).every((ms) => ms < 50)).toBe(true);
    expect(at.a[2]! - at.a[1]!).toBeGreaterThanOrEqual(90);
    expect(at.a[3]! - at.a[2]!).toBeGreaterThanOrEqual(90);
    expect(at.b[0]!).toBeLessThan(50);
  });

  it("a webhook signature is the HMAC-SHA256 of the raw body with the app secret", () => {
    // The example from RFC 4231 test case 2 ("Jefe" / "what do ya want for nothing?").
    expect(signatureOf("what do ya want for nothing?", "Jefe")).toBe("sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });

  it("WHATSAPP_TEMPLATE is a name, or name:language", () => {
    expect(parseTemplateSetting("ask_user_waiting")).toEqual({ name: "ask_user_waiting", language: "en_US" });
    expect(parseTemplateSetting("ask_user_waiting:de")).toEqual({ name: "ask_user_waiting", language: "de" });
    expect(parseTemplateSetting(undefined)).toBeUndefined();
  });
});
