import { describe, expect, it } from "vitest";
import { looksLikeCredential } from "../../../src/parse/index.ts";
import { decodeTeamsSubmitData, encodeTeamsSubmitData } from "../../../src/platforms/teams/callback-data.ts";
import { renderTeamsPrompt, renderTeamsSummary, teamsChatKind, TEAMS_CARD_TEXT_MAX, TEAMS_INPUT_LABEL_MAX } from "../../../src/platforms/teams/payload.ts";
import { teamsTextToPlain, toTeamsCardText, toTeamsText } from "../../../src/platforms/teams/escaping.ts";
import { TEAMS_ACTION_TITLE_MAX, TEAMS_CARD_ACTIONS_MAX, TEAMS_SUBMIT_DATA_MAX } from "../../../src/platforms/teams/platform.ts";
import { formatTarget, parseTarget } from "../../../src/record/targets.ts";
import { expiredLateOpen as expired, LATE } from "../../fixtures/render-records.ts";
import { question, record } from "../../helpers/records.ts";

const four = question({ options: [{ label: "A".repeat(64) }, { label: "Production" }, { label: "EU" }, { label: "US" }] });

describe("teams: Adaptive Card renderers", () => {
  it("one single-select question: a TextBlock per line, one Action.Submit per option, Other… as a ShowCard, Skip", () => {
    const r = record([question({ options: [{ label: "Staging (Recommended)", description: "safe" }, { label: "Production" }] })]);
    const { card, text } = renderTeamsPrompt(r, { kind: "channel" });
    expect(card.body.map((b) => b.text).join("\n").replace(/^ $/gmu, "")).toBe(text);
    expect(card.body.every((b) => b.type === "TextBlock" && b.wrap)).toBe(true);
    expect(card.actions).toEqual([
      { type: "Action.Submit", title: "Staging (Recommended)", data: { ask_user: "a1|q_123|c|0" } },
      { type: "Action.Submit", title: "Production", data: { ask_user: "a1|q_123|c|1" } },
      {
        type: "Action.ShowCard",
        title: "Other…",
        card: {
          type: "AdaptiveCard",
          body: [{ type: "Input.Text", id: "ask_user_answer", label: "Where should this deploy?", isMultiline: true, maxLength: 2000, placeholder: "Your answer" }],
          actions: [{ type: "Action.Submit", title: "Send", data: { ask_user: "a1|q_123|o" } }],
        },
      },
      { type: "Action.Submit", title: "Skip", data: { ask_user: "a1|q_123|s" } },
    ]);
    expect(text).toContain("In this channel, a typed answer counts only in this message's thread. Or @mention me with it.");
  });

  it("limits: at most 6 actions (4 options + Other… + Skip), titles cut to 40, data within its limit, text within the card's", () => {
    const r = record([four], { id: "q".repeat(40) });
    const { card } = renderTeamsPrompt(r);
    expect(card.actions).toHaveLength(TEAMS_CARD_ACTIONS_MAX);
    for (const action of card.actions!) {
      expect(action.title.length).toBeLessThanOrEqual(TEAMS_ACTION_TITLE_MAX);
      const data = action.type === "Action.Submit" ? action.data.ask_user : action.type === "Action.ShowCard" ? action.card.actions[0]!.data.ask_user : "";
      expect(data.length).toBeLessThanOrEqual(TEAMS_SUBMIT_DATA_MAX);
    }
    expect(card.actions![0]!.title).toBe(`${"A".repeat(TEAMS_ACTION_TITLE_MAX - 1)}…`);
    const long = renderTeamsPrompt(record([question({ question: "Why? ".repeat(400), options: [{ label: "a", description: "d".repeat(200) }, { label: "b" }] })]));
    expect(long.text.length).toBeLessThanOrEqual(TEAMS_CARD_TEXT_MAX);
    expect(JSON.stringify(long.card).length).toBeLessThan(28_000); // Teams' message size
  });

  it("several questions, or a multi-select one: numbered text, no actions; a personal chat has no group hint", () => {
    const r = record([question(), question({ id: "b", multiSelect: true })]);
    const { card, text } = renderTeamsPrompt(r, { kind: "personal" });
    expect(card.actions).toBeUndefined();
    expect(text).toMatch(/1\. /u);
    expect(text).not.toMatch(/In this (channel|group)/u);
    expect(renderTeamsPrompt(r, { kind: "groupChat" }).text).toContain("In this group, a typed answer counts only as a reply to this message.");
  });

  it("the summary card has no actions; a pending record renders its prompt", () => {
    const pending = record([question()]);
    expect(renderTeamsSummary(pending).card.actions).toHaveLength(4);
    const done = record([question()], { status: "answered", resolvedAtMs: 1, answers: { target: ["Production"] }, by: { surface: "teams", user: "u", userName: "Ada", via: "button" } } as never);
    const summary = renderTeamsSummary(done, { nowMs: 2 });
    expect(summary.card.actions).toBeUndefined();
    expect(summary.text).toMatch(/Production — answered in Microsoft Teams by Ada/u);
  });

  it("the submit codec: pairs, and anything off decodes to null", () => {
    const press = { questionId: "q_1", action: { kind: "choice" as const, optionIndex: 2 } };
    expect(decodeTeamsSubmitData(encodeTeamsSubmitData(press))).toEqual(press);
    for (const bad of [undefined, 7, "", "a1|q_1|c|9", "a1|q 1|s", "x".repeat(TEAMS_SUBMIT_DATA_MAX + 1), { ask_user: "a1|q_1|s" }]) expect(decodeTeamsSubmitData(bad)).toBeNull();
    expect(decodeTeamsSubmitData("a1|q_1|c|3", { optionCount: 2 })).toBeNull();
  });

  it("the Other… field's label is the question as Teams shows plain text: broadcast mentions broken as in the card's text, nothing else escaped, cut to 200", () => {
    const r = record([question({ question: "Ship *now*, @channel? Tell @everyone <b>x</b>", options: [{ label: "Yes" }, { label: "No" }] })]);
    const { card, text } = renderTeamsPrompt(r);
    const other = card.actions!.find((a) => a.type === "Action.ShowCard");
    const label = other?.type === "Action.ShowCard" ? other.card.body[0]!.label : undefined;
    expect(label).toBe("Ship *now*, @\u200Bchannel? Tell @\u200Beveryone <b>x</b>");
    expect(text).toContain("@\u200Bchannel? Tell @\u200Beveryone");
    const long = renderTeamsPrompt(record([question({ question: `${"@channel ".repeat(40)}?`, options: [{ label: "Yes" }, { label: "No" }] })]));
    const longOther = long.card.actions!.find((a) => a.type === "Action.ShowCard");
    const longLabel = longOther?.type === "Action.ShowCard" ? longOther.card.body[0]!.label : "";
    expect(longLabel.length).toBeLessThanOrEqual(TEAMS_INPUT_LABEL_MAX);
    expect(longLabel).not.toMatch(/@channel/u);
  });

  it("chat kinds from conversation ids", () => {
    expect(teamsChatKind("19:abc@thread.tacv2")).toBe("channel");
    expect(teamsChatKind("19:abc@thread.skype")).toBe("channel");
    expect(teamsChatKind("19:abc@thread.v2")).toBe("groupChat");
    expect(teamsChatKind("0a0a0a0a-0000-4000-8000-00000000ada1")).toBe("personal");
  });
});

describe("teams: escaping", () => {
  it.each([
    ["<at>Ada</at> hi", "&lt;at&gt;Ada&lt;/at&gt; hi"],
    ["**bold** _it_ ~s~ `code` [l](https://e.x) # h", "\\*\\*bold\\*\\* \\_it\\_ \\~s\\~ \\`code\\` \\[l\\](https://e.x) \\# h"],
    ["@everyone and @channel", "@\u200Beveryone and @\u200Bchannel"],
    ["a & b", "a &amp; b"],
  ])("a message: %j", (input, output) => {
    expect(toTeamsText(input)).toBe(output);
  });

  it("a card TextBlock escapes markdown only (it never reads HTML)", () => {
    expect(toTeamsCardText("<b>x</b> *y* [z](u)")).toBe("<b>x</b> \\*y\\* \\[z\\](u)");
  });

  it.each([
    ["<at>Ask Bot</at> Production", ["<at>Ask Bot</at>"], "Production"],
    ["2 <at>Ask Bot</at>", ["<at>Ask Bot</at>"], "2"],
    ["ask <at>Grace</at> &lt;b&gt; &amp; more", [], "ask @Grace <b> & more"],
    ["<p>line one<br>line two</p>", [], "line one\nline two"],
  ])("from Teams: %j", (input, mentions, plain) => {
    expect(teamsTextToPlain(input, mentions)).toBe(plain);
  });

  it("an Entra client secret (3 characters, a digit, Q~, 34 more) is a credential", () => {
    expect(looksLikeCredential(`here: Abc8Q~${"aB3dE_fG.h-".repeat(3)}x`)).toBe(true);
  });
});

describe("teams: targets in text form (a conversation id holds a colon)", () => {
  it.each([
    ["teams:19:abc123@thread.tacv2", { surface: "teams", chat: "19:abc123@thread.tacv2" }],
    ["teams:19:meeting_Zm9v@thread.v2", { surface: "teams", chat: "19:meeting_Zm9v@thread.v2" }],
    ["teams:0a0a0a0a-0000-4000-8000-00000000ada1", { surface: "teams", chat: "0a0a0a0a-0000-4000-8000-00000000ada1" }],
    ["teams:19:abc@thread.v2:0a0a0a0a-0000-4000-8000-00000000ada1+0b0b", { surface: "teams", chat: "19:abc@thread.v2", users: ["0a0a0a0a-0000-4000-8000-00000000ada1", "0b0b"] }],
  ])("%s", (text, target) => {
    expect(parseTarget(text)).toEqual({ ok: true, target });
    expect(formatTarget(target as never)).toBe(text);
  });

  it.each(["teams:19:abc", "teams:general", "teams:19:abc@thread.tacv2:bad user", "teams:"])("%s is refused", (text) => {
    expect(parseTarget(text).ok).toBe(false);
  });

  it("other surfaces parse as before", () => {
    expect(parseTarget("telegram:-1001:42+77")).toEqual({ ok: true, target: { surface: "telegram", chat: "-1001", users: ["42", "77"] } });
  });
});

describe("a late copy offers no Skip (a late skip is refused)", () => {
  it("Teams", () => {
    const { nowMs: now, text, c0, c1, other } = LATE;
    const card = renderTeamsSummary(expired, { nowMs: now });
    expect(card.text).toBe(text);
    expect(card.card.actions).toEqual([
      { type: "Action.Submit", title: "Staging (Recommended)", data: { ask_user: c0 } },
      { type: "Action.Submit", title: "Production", data: { ask_user: c1 } },
      {
        type: "Action.ShowCard",
        title: "Other…",
        card: {
          type: "AdaptiveCard",
          body: [{ type: "Input.Text", id: "ask_user_answer", label: "Where should this deploy?", isMultiline: true, maxLength: 2000, placeholder: "Your answer" }],
          actions: [{ type: "Action.Submit", title: "Send", data: { ask_user: other } }],
        },
      },
    ]);
  });
});
