/**
 * WhatsApp's renderers as plain JSON for the Cloud API (the late case moved from test/render/render-late.test.ts; the
 * list message's own cases are in whatsapp.test.ts).
 */
import { describe, expect, it } from "vitest";
import { renderWhatsAppSummary } from "../../../src/platforms/whatsapp/payload.ts";
import { expiredLateOpen as expired, LATE } from "../../fixtures/render-records.ts";

describe("a late copy offers no Skip (a late skip is refused)", () => {
  it("WhatsApp", () => {
    const { nowMs: now, text, c0, c1, other } = LATE;
    expect(renderWhatsAppSummary(expired, { nowMs: now })).toEqual({
      type: "interactive",
      interactive: {
        type: "list",
        body: { text },
        action: { button: "Choose an answer", sections: [{ rows: [{ id: c0, title: "Staging (Recommended)" }, { id: c1, title: "Production" }, { id: other, title: "Other…" }] }] },
      },
    });
  });
});
