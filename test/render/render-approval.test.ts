/**
 * Issue 35 in chat: every platform's prompt for an approval shows the whole subject in its own code block with Allow,
 * Deny and the grants, or, when it cannot carry all of it, says what is missing and offers Review… (the target's
 * answer link) and Deny, never Allow; approvalShownWhole agrees with what the renderer showed.
 */
import { describe, expect, it } from "vitest";
import type { QuestionRecord } from "../../src/record/record.ts";
import { NO_LINK_NOTE, REVIEW_BUTTON_TEXT, REVIEW_NOTE } from "../../src/render/approval.ts";
import { approvalShownWhole } from "../../src/platforms/approval-views.ts";
import { renderDiscordPrompt } from "../../src/platforms/discord/payload.ts";
import { renderMatrixPrompt, type MatrixMessageContent } from "../../src/platforms/matrix/payload.ts";
import { renderMattermostPrompt } from "../../src/platforms/mattermost/payload.ts";
import { renderSlackPrompt, type SlackRichTextBlock } from "../../src/platforms/slack/payload.ts";
import { renderTeamsPrompt, type TeamsTextBlock } from "../../src/platforms/teams/payload.ts";
import { renderTelegramPrompt } from "../../src/platforms/telegram/payload.ts";
import { renderWhatsAppPrompt, type WhatsAppListMessage } from "../../src/platforms/whatsapp/payload.ts";
import { approval, GRANT, HOSTILE_COMMAND, LINK, LONG, SHORT } from "../fixtures/render-records.ts";
import { question, record } from "../helpers/records.ts";

/** What a copy shows and offers, read back from the platform's payload. */
interface Seen {
  /** Everything visible, as one string (the payload as JSON: nothing hides from a search). */
  all: string;
  /** The code block's content as the platform shows it. */
  block: string;
  /** The native choices (buttons, rows, numbered options): their labels. */
  choices: string[];
  /** The URL Review… opens: a URL button's, or the link in the text. */
  review?: string;
  /** The plain text of the message around the block. */
  text: string;
}

const between = (text: string, open: string, close: string): string => {
  const start = text.indexOf(open);
  if (start < 0) return "";
  const end = text.indexOf(close, start + open.length);
  return text.slice(start + open.length, end);
};
const fenced = (text: string) => between(text, "```\n", "\n```");
const unescapeHtml = (html: string) => html.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");

interface Platform {
  surface: "telegram" | "discord" | "slack" | "whatsapp" | "mattermost" | "teams" | "matrix";
  chat: string;
  see(r: QuestionRecord, chat: string): Seen;
}

const PLATFORMS: Platform[] = [
  {
    surface: "telegram",
    chat: "123456789",
    see(r, chat) {
      const m = renderTelegramPrompt(r, { targetChat: chat });
      const pre = m.entities?.find((e) => e.type === "pre");
      const buttons = m.reply_markup?.inline_keyboard.flat() ?? [];
      return {
        all: JSON.stringify(m),
        block: pre ? m.text.slice(pre.offset, pre.offset + pre.length) : "",
        choices: buttons.filter((b) => b.callback_data).map((b) => b.text),
        ...(buttons.find((b) => "url" in b) ? { review: (buttons.find((b) => "url" in b) as { url: string }).url } : {}),
        text: m.text,
      };
    },
  },
  {
    surface: "discord",
    chat: "222333444",
    see(r, chat) {
      const m = renderDiscordPrompt(r, { targetChat: chat });
      const buttons = m.components.flatMap((row) => row.components);
      const link = buttons.find((b) => "url" in b) as { url: string; label: string } | undefined;
      return { all: JSON.stringify(m), block: fenced(m.content), choices: buttons.filter((b) => b.custom_id).map((b) => b.label), ...(link ? { review: link.url } : {}), text: m.content };
    },
  },
  {
    surface: "slack",
    chat: "C0123ABC",
    see(r, chat) {
      const m = renderSlackPrompt(r, { targetChat: chat });
      const rich = m.blocks.filter((b): b is SlackRichTextBlock => b.type === "rich_text");
      const actions = m.blocks.find((b) => b.type === "actions");
      const elements = actions?.type === "actions" ? actions.elements : [];
      const link = elements.find((e) => "url" in e) as { url: string } | undefined;
      const sections = m.blocks.flatMap((b) => (b.type === "section" ? [b.text.text] : []));
      return {
        all: JSON.stringify(m),
        block: rich.map((b) => b.elements[0].elements[0].text).join("\n"),
        choices: elements.filter((e) => !("url" in e)).map((e) => e.text.text),
        ...(link ? { review: link.url } : {}),
        text: sections.join("\n\n"),
      };
    },
  },
  {
    surface: "whatsapp",
    chat: "15551234567",
    see(r, chat) {
      const m = renderWhatsAppPrompt(r, { targetChat: chat }) as WhatsAppListMessage;
      const body = m.interactive.body.text;
      const link = /Review… (https?:\S+)/u.exec(body)?.[1];
      return { all: JSON.stringify(m), block: fenced(body), choices: m.interactive.action.sections[0].rows.map((row) => row.title), ...(link ? { review: link } : {}), text: body };
    },
  },
  {
    surface: "mattermost",
    chat: "channel1abc",
    see(r, chat) {
      const m = renderMattermostPrompt(r, { targetChat: chat });
      const link = /\[Review…\]\((https?:[^)]+)\)/u.exec(m.message)?.[1];
      return { all: JSON.stringify(m), block: fenced(m.message), choices: m.props.attachments.flatMap((a) => a.actions.map((x) => x.name)), ...(link ? { review: link } : {}), text: m.message };
    },
  },
  {
    surface: "teams",
    chat: "0f8fad5b-d9cb-469f-a165-70867728950e",
    see(r, chat) {
      const m = renderTeamsPrompt(r, { targetChat: chat });
      const mono = m.card.body.filter((b: TeamsTextBlock) => b.fontType === "Monospace");
      const actions = m.card.actions ?? [];
      const link = actions.find((a) => a.type === "Action.OpenUrl") as { url: string } | undefined;
      return {
        all: JSON.stringify(m),
        block: mono.map((b) => (b.text === " " ? "" : b.text)).join("\n"),
        choices: actions.filter((a) => a.type !== "Action.OpenUrl").map((a) => a.title),
        ...(link ? { review: link.url } : {}),
        text: m.text,
      };
    },
  },
  {
    surface: "matrix",
    chat: "!room:example.org",
    see(r, chat) {
      const prompt = renderMatrixPrompt(r, { targetChat: chat });
      expect(prompt.type).toBe("m.room.message");
      const c = prompt.content as MatrixMessageContent;
      const link = /<a href="([^"]+)">/u.exec(c.formatted_body)?.[1];
      const choices = c.body.split("\n").flatMap((line) => /^\d+\. (.+)$/u.exec(line)?.slice(1) ?? []);
      return { all: JSON.stringify(c), block: unescapeHtml(between(c.formatted_body, "<pre><code>", "</code></pre>")), choices, ...(link ? { review: unescapeHtml(link) } : {}), text: c.body };
    },
  },
];

describe.each(PLATFORMS)("$surface: an approval's prompt", (p) => {
  const withLink = (subject: Parameters<typeof approval>[0]) => approval(subject, [{ surface: p.surface, chat: p.chat }]);

  it("(a) a short Bash command: the whole subject in the code block, Allow, Deny and the grant", () => {
    const r = withLink(SHORT);
    const seen = p.see(r, p.chat);
    expect(seen.block).toContain("ls -la /tmp");
    expect(seen.block).toContain("/home/ada/project");
    expect(seen.block).toContain("List files");
    expect(seen.choices.slice(0, 3)).toEqual(["Allow", "Deny", GRANT]);
    expect(seen.review).toBeUndefined();
    expect(seen.text).not.toContain(REVIEW_NOTE);
    expect(approvalShownWhole(r, p.surface)).toBe(true);
  });

  it("(b) a command past the limit: a cut block, the missing note, Review… with the link, Deny, and no Allow", () => {
    const r = withLink(LONG);
    const seen = p.see(r, p.chat);
    expect(seen.block).toContain("echo 000");
    expect(seen.block).not.toContain("curl");
    expect(seen.all).not.toContain("curl");
    expect(seen.text).toMatch(/[\d,]+ more characters? (is|are) not shown here\./u);
    expect(seen.text.replace(/\u200B/gu, "")).toContain(REVIEW_NOTE.replace(/\u200B/gu, ""));
    expect(seen.review).toBe(LINK);
    expect(seen.choices).toContain("Deny");
    expect(seen.choices).not.toContain("Allow");
    expect(seen.choices).not.toContain(GRANT);
    expect(approvalShownWhole(r, p.surface)).toBe(false);
  });

  it("(c) the same without a link: the no-link note, and Deny only", () => {
    const r = approval(LONG);
    const seen = p.see(r, p.chat);
    expect(seen.review).toBeUndefined();
    expect(seen.all).not.toContain(REVIEW_BUTTON_TEXT);
    expect(seen.text).toMatch(/not shown here\./u);
    expect(seen.choices.filter((c) => c !== "Skip")).toEqual(["Deny"]);
    expect(approvalShownWhole(r, p.surface)).toBe(false);
  });

  it("(c) another target's link is not this copy's", () => {
    const r = approval(LONG, [{ surface: p.surface, chat: `${p.chat}0` }, { surface: "web", chat: "" }]);
    expect(p.see(r, p.chat).review).toBeUndefined();
  });

  it("(d) hostile content stays inside the block, invisible characters as labelled marks", () => {
    const r = withLink({ input: { command: HOSTILE_COMMAND } });
    const seen = p.see(r, p.chat);
    const plainBlock = seen.block.replace(/\\(?=[\\*_~`|[\]<>#-])/gu, "").replace(/\u200B/gu, "");
    for (const part of ["<script>alert(1)</script>", "everyone", "here", "⟨U+202E⟩txt.exe⟨LS⟩next⟨ZWSP⟩zw⟨PS⟩end", "mv a.txt"]) expect(plainBlock).toContain(part);
    // The marks replaced the characters: none of them is sent (a zero-width space is the escaping's own).
    expect(seen.all).not.toMatch(/[\u202E\u2028\u2029]/u);
    // No mention can form: a broadcast is broken wherever it stands.
    expect(seen.all).not.toMatch(/@(everyone|here)/u);
    expect(seen.choices.slice(0, 2)).toEqual(["Allow", "Deny"]);
    expect(approvalShownWhole(r, p.surface)).toBe(true);
  });

  it("(e) approvalShownWhole agrees with the renderer, around the limit", () => {
    // A growing command: Allow appears exactly where the copy shows all of it.
    for (const lines of [1, 10, 40, 80, 160, 400]) {
      const r = withLink({ input: { command: Array.from({ length: lines }, (_, i) => `echo line ${i} ${"y".repeat(60)}`).join("\n") } });
      const seen = p.see(r, p.chat);
      const shown = seen.choices.includes("Allow");
      expect(approvalShownWhole(r, p.surface)).toBe(shown);
      if (shown) expect(seen.block).toContain(`echo line ${lines - 1} `);
    }
  });
});

describe("fenced code blocks cannot be closed from inside", () => {
  // Telegram's pre entity, Slack's rich text and Matrix's <pre><code>: each platform's renderers.test.ts.
  it.each([
    ["discord", (r: QuestionRecord) => renderDiscordPrompt(r).content],
    ["mattermost", (r: QuestionRecord) => renderMattermostPrompt(r).message],
    ["whatsapp", (r: QuestionRecord) => (renderWhatsAppPrompt(r) as WhatsAppListMessage).interactive.body.text],
  ])("%s: exactly two fences, around the subject", (_name, text) => {
    const t = text(approval({ input: { command: HOSTILE_COMMAND } }));
    expect(t.match(/```/gu)).toHaveLength(2);
    expect(between(t, "```\n", "\n```")).toContain("mv a.txt");
  });
});

describe("approvalShownWhole", () => {
  it("is conservative: a copy that fits in a direct message but not with a group's reply hint counts as cut", () => {
    // Find a Telegram command that fits a direct message's copy but not the group one's (whose footer is longer).
    const allows = (r: QuestionRecord, chat: "direct" | "group") => renderTelegramPrompt(r, { chat }).reply_markup!.inline_keyboard.flat().some((b) => b.text === "Allow");
    const of = (n: number) => approval({ input: { command: "z".repeat(n) } });
    // The longest command a direct message's copy shows whole.
    let n = 4_096;
    while (!allows(of(n), "direct")) n -= 1;
    expect(allows(of(n), "group")).toBe(false);
    expect(approvalShownWhole(of(n), "telegram")).toBe(false);
    // A shorter one fits every variant.
    expect(approvalShownWhole(of(n - 200), "telegram")).toBe(true);
  });

  it("is true for a record that is no approval", () => {
    expect(approvalShownWhole(record([question()]), "telegram")).toBe(true);
  });
});
