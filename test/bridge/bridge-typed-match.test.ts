import { describe, expect, it } from "vitest";
import type { TextEvent } from "../../src/bridge/index.ts";
import { createRecordCache } from "../../src/bridge/record-cache.ts";
import { createTypedMatcher } from "../../src/bridge/typed-match.ts";
import type { QuestionRecord } from "../../src/record/record.ts";

const GROUP = "-100";
const DM = "101";
const question = { id: "q", header: "Q", question: "Which?", options: [{ label: "A" }, { label: "B" }], multiSelect: false };

function record(id: string, chat: string, users?: string[], status: QuestionRecord["status"] = "pending"): QuestionRecord {
  return {
    id,
    questions: [question],
    timeoutSeconds: 600,
    status,
    createdAtMs: Number(id.replace(/\D/g, "")),
    expiresAtMs: Date.now() + 600_000,
    targets: [{ surface: "telegram", chat, ...(users ? { users } : {}) }],
    deliveries: [{ surface: "telegram", chat, messageRef: `m-${id}`, deliveredAtMs: 1 }],
  } as unknown as QuestionRecord;
}

/** Ada (101) and Grace (102) may answer; Mallory (666) is on no allow-list. */
function setup() {
  const cache = createRecordCache();
  cache.put(record("q1", GROUP));
  cache.put(record("q2", GROUP, ["102"]));
  cache.put(record("q3", DM));
  const matcher = createTypedMatcher({ surface: "telegram", allowedUsers: ["101", "102"], cache });
  matcher.noteSent({ chat: GROUP, messageRef: "follow-up", questionId: "q1" });
  matcher.noteSent({ chat: GROUP, messageRef: "ask-ada", questionId: "q1", ownWordsOf: "101" });
  return matcher;
}

const text = (user: string, chat: string, extra: Partial<TextEvent> = {}): TextEvent => ({ kind: "text", text: "1", user: { id: user }, chat, direct: chat === DM, ...extra });

describe("createTypedMatcher: which typed messages count, and for which question", () => {
  it.each<[string, TextEvent, { id: string; replied: boolean; ownWords: boolean } | undefined]>([
    ["a DM: any message from the person", text("101", DM), { id: "q3", replied: false, ownWords: false }],
    ["a group: chatter from someone the target does not name is not ours", text("101", GROUP), undefined],
    ["a group: a plain message from a user the target names", text("102", GROUP), { id: "q2", replied: false, ownWords: false }],
    ["a group: a reply to the prompt", text("101", GROUP, { replyToMessageRef: "m-q1" }), { id: "q1", replied: true, ownWords: false }],
    ["a group: a stranger's reply to the prompt (refused later, by mayAnswer)", text("666", GROUP, { replyToMessageRef: "m-q1" }), { id: "q1", replied: true, ownWords: false }],
    ["a group: a reply to the bot's follow-up", text("101", GROUP, { replyToMessageRef: "follow-up" }), { id: "q1", replied: true, ownWords: false }],
    ["a group: the presser's reply to their Other… request is their own words", text("101", GROUP, { replyToMessageRef: "ask-ada" }), { id: "q1", replied: true, ownWords: true }],
    ["a group: someone else's reply to that request is not ours", text("102", GROUP, { replyToMessageRef: "ask-ada" }), undefined],
    ["a group: a reply to some other message is not ours", text("101", GROUP, { replyToMessageRef: "someone's photo" }), undefined],
  ])("%s", (_name, event, expected) => {
    const found = setup().match(event);
    expect(found && { id: found.record.id, replied: found.replied, ownWords: found.ownWords }).toEqual(expected);
  });

  it("after Other…: in a DM the person's next message is their own words; in a group only with a reply (or a target naming them)", () => {
    const matcher = setup();
    matcher.awaitOwnWords(DM, "101", "q3");
    matcher.awaitOwnWords(GROUP, "101", "q1");
    expect(matcher.match(text("101", DM))).toMatchObject({ record: { id: "q3" }, ownWords: true });
    expect(matcher.match(text("101", GROUP))).toBeUndefined();
    matcher.awaitOwnWords(GROUP, "102", "q2");
    expect(matcher.match(text("102", GROUP))).toMatchObject({ record: { id: "q2" }, ownWords: true });
    matcher.ownWordsTaken(GROUP, "102");
    expect(matcher.match(text("102", GROUP))).toMatchObject({ record: { id: "q2" }, ownWords: false });
  });
});

describe("createTypedMatcher: an expired question that still takes a late answer (issue 20 §3)", () => {
  const NOW = 1_000_000;
  /** Expired at NOW - 1 s; its late window ends at `lateUntilMs`. */
  const expired = (id: string, chat: string, lateUntilMs: number | undefined, extra: Partial<QuestionRecord> = {}): QuestionRecord =>
    ({ ...record(id, chat), status: "expired", reason: "expired", expiresAtMs: NOW - 1_000, resolvedAtMs: NOW - 1_000, ...(lateUntilMs ? { lateUntilMs } : {}), ...extra }) as QuestionRecord;

  function matcherWith(...records: QuestionRecord[]) {
    const cache = createRecordCache(() => NOW);
    for (const r of records) cache.put(r);
    return createTypedMatcher({ surface: "telegram", allowedUsers: ["101", "102"], cache, now: () => NOW });
  }

  it.each<[string, QuestionRecord[], TextEvent, string | undefined]>([
    ["a DM: any message answers the expired question while its window is open", [expired("q5", DM, NOW + 60_000)], text("101", DM), "q5"],
    ["a DM: not once the window closed", [expired("q5", DM, NOW - 1)], text("101", DM), undefined],
    ["a DM: not without a window", [expired("q5", DM, undefined)], text("101", DM), undefined],
    ["a DM: not once it has its late answer", [expired("q5", DM, NOW + 60_000, { lateAnswer: { answers: { q: ["A"] }, by: { surface: "telegram", via: "text" }, atMs: NOW } })], text("101", DM), undefined],
    ["a DM: a pending question there comes first", [expired("q5", DM, NOW + 60_000), record("q6", DM)], text("101", DM), "q6"],
    ["a group: a plain message never answers it, even from a named user", [expired("q7", GROUP, NOW + 60_000, { targets: [{ surface: "telegram", chat: GROUP, users: ["101"] }] })], text("101", GROUP), undefined],
    ["a group: a reply to its prompt does", [expired("q7", GROUP, NOW + 60_000)], text("101", GROUP, { replyToMessageRef: "m-q7" }), "q7"],
  ])("%s", (_name, records, event, expected) => {
    expect(matcherWith(...records).match(event)?.record.id).toBe(expected);
  });
});
