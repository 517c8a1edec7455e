/** Mattermost's renderers: posts with interactive message buttons as plain JSON (moved from test/render/render-late.test.ts). */
import { describe, expect, it } from "vitest";
import { renderMattermostSummary } from "../../../src/platforms/mattermost/payload.ts";
import { expiredLateOpen as expired, LATE } from "../../fixtures/render-records.ts";

describe("a late copy offers no Skip (a late skip is refused)", () => {
  it("Mattermost", () => {
    const { nowMs: now, text, c0, c1, other } = LATE;
    const action = (id: string, name: string, style: string, d: string) => ({ id, type: "button", name, style, integration: { url: "", context: { d, c: "", s: "" } } });
    expect(renderMattermostSummary(expired, { nowMs: now })).toEqual({
      message: text,
      props: {
        attachments: [{ fallback: "Staging (Recommended) · Production · Other…", actions: [action("opt0", "Staging (Recommended)", "primary", c0), action("opt1", "Production", "primary", c1), action("other", "Other…", "default", other)] }],
        ask_user_question: "q_123",
      },
    });
  });
});
