import { describe, expect, it } from "vitest";
import { applyEffects, TEXTS, type BridgeResponse, type BridgeUser, type InboundEvent, type PlatformOps } from "../../src/bridge/index.ts";
import { createInboundHandler } from "../../src/bridge/inbound.ts";
import { createInflightSends } from "../../src/bridge/inflight-sends.ts";
import { createRecordCache } from "../../src/bridge/record-cache.ts";
import type { GatewayClient } from "../../src/client/index.ts";
import { GatewayError } from "../../src/kernel/errors.ts";
import { looksLikeCredential } from "../../src/parse/index.ts";
import type { QuestionRecord } from "../../src/record/record.ts";
import { question, record } from "../helpers/records.ts";

type Op = keyof PlatformOps;
type Call = [Op, ...unknown[]];

/** In-memory ops that record every call; `without` leaves operations out, `refuseDelete` makes the delete fail. */
function recordingOps(options: { without?: Op[]; refuseDelete?: boolean; failOn?: Op } = {}) {
  const calls: Call[] = [];
  const call = (op: Op, ...args: unknown[]) => {
    calls.push([op, ...args]);
    if (options.failOn === op) throw new Error(`${op} failed`);
  };
  const all: Required<PlatformOps> = {
    toast: async (text) => call("toast", text),
    react: async (mark) => call("react", mark),
    deleteMessage: async () => (call("deleteMessage"), !options.refuseDelete),
    reply: async (reply) => call("reply", reply),
    askOwnWords: async (text, questionId) => call("askOwnWords", text, questionId),
    openModal: async (request) => call("openModal", request),
  };
  const ops: PlatformOps = { reply: all.reply };
  for (const op of Object.keys(all) as Op[]) if (!options.without?.includes(op)) Object.assign(ops, { [op]: all[op] });
  return { ops, calls };
}

const CREDENTIAL: BridgeResponse = [
  { delete: true, ifDeleted: { reply: TEXTS.credential, private: true }, otherwise: { reply: TEXTS.credentialNotDeleted, private: true } },
];

describe("applyEffects: one order, through the platform's operations", () => {
  it.each<[string, BridgeResponse, Parameters<typeof recordingOps>[0], Call[]]>([
    [
      "every effect in the order given",
      [{ toast: "t" }, { react: "refused" }, { delete: true, ifDeleted: { reply: "gone" } }, { askOwnWords: "own?", questionId: "q" }, { reply: "r", replyTo: true, questionId: "q" }],
      {},
      [["toast", "t"], ["react", "refused"], ["deleteMessage"], ["reply", { reply: "gone" }], ["askOwnWords", "own?", "q"], ["reply", { reply: "r", replyTo: true, questionId: "q" }]],
    ],
    ["a credential deleted: the notice", CREDENTIAL, {}, [["deleteMessage"], ["reply", { reply: TEXTS.credential, private: true }]]],
    ["a credential the platform refused to delete: the other notice", CREDENTIAL, { refuseDelete: true }, [["deleteMessage"], ["reply", { reply: TEXTS.credentialNotDeleted, private: true }]]],
    ["no message to delete (a press, a modal): as if deleted", CREDENTIAL, { without: ["deleteMessage"] }, [["reply", { reply: TEXTS.credential, private: true }]]],
    ["no reactions: the mark is left out, the rest goes on", [{ react: "refused" }, { reply: "r" }], { without: ["react"] }, [["reply", { reply: "r" }]]],
    ["no toasts: a toast with a reply says only the reply", [{ toast: "t" }, { reply: "r", private: true }], { without: ["toast"] }, [["reply", { reply: "r", private: true }]]],
    ["no toasts: a toast alone is said privately", [{ toast: "t" }], { without: ["toast"] }, [["reply", { reply: "t", private: true }]]],
    ["no toasts: a reply behind a delete counts as a reply", [{ toast: "t" }, ...CREDENTIAL], { without: ["toast", "deleteMessage"] }, [["reply", { reply: TEXTS.credential, private: true }]]],
    ["no modals: nothing opens", [{ openModal: { questionId: "q", title: "T", label: "L" } }], { without: ["openModal"] }, []],
    ["a failed operation stops the rest", [{ toast: "t" }, { reply: "r" }], { failOn: "toast" }, [["toast", "t"]]],
  ])("%s", async (_name, effects, options, expected) => {
    const { ops, calls } = recordingOps(options);
    await applyEffects(effects, ops).catch(() => {});
    expect(calls).toEqual(expected);
  });
});

const CHAT = "101";
const ADA: BridgeUser = { id: "101", name: "Ada" };
const MALLORY: BridgeUser = { id: "666" };
const PENDING = record([question()], { id: "q1", targets: [{ surface: "telegram", chat: CHAT }], deliveries: [{ surface: "telegram", chat: CHAT, messageRef: "m1", deliveredAtMs: 1 }] } as Partial<QuestionRecord>);
const ANSWERED = { ...PENDING, status: "answered", answers: { target: ["Production"] } } as QuestionRecord;
const EXPIRED = { ...PENDING, status: "expired", expiresAtMs: 1, lateUntilMs: Date.now() + 600_000 } as QuestionRecord;
const LATE = { ...EXPIRED, lateAnswer: { answers: { target: ["Production"] }, atMs: 2 } } as unknown as QuestionRecord;

/** A gateway client holding one record; `resolve` and `reply` answer as told. */
function fakeClient(current: QuestionRecord, answer: { resolve?: () => QuestionRecord; reply?: () => unknown }): GatewayClient {
  return {
    get: async () => current,
    resolve: async () => (answer.resolve ?? (() => ANSWERED))(),
    reply: async ({ text }: { text: string }) =>
      looksLikeCredential(text)
        ? { kind: "invalid", reason: "credential" }
        : (answer.reply ?? (() => ({ kind: "answered", record: ANSWERED, readAs: { target: [{ value: "Production", via: "label" }] } })))(),
  } as unknown as GatewayClient;
}

function handler(current: QuestionRecord, answer: Parameters<typeof fakeClient>[1] = {}, otherOpens: "modal" | "reply" = "modal") {
  const cache = createRecordCache();
  cache.put(current);
  return createInboundHandler({ client: fakeClient(current, answer), surface: "telegram", allowedUsers: [ADA.id], cache, inflight: createInflightSends(), otherOpens, toPlatformText: (t) => t });
}

const press = (kind: "choice" | "skip" | "other", user = ADA): InboundEvent =>
  kind === "choice" ? { kind, questionId: "q1", optionIndex: 1, user, chat: CHAT } : { kind, questionId: "q1", user, chat: CHAT };
const typed = (text: string, user = ADA, chat = CHAT): InboundEvent => ({ kind: "text", text, user, chat, direct: chat === CHAT, messageRef: "u1" });
const terminal = () => {
  throw new GatewayError("QUESTION_ALREADY_TERMINAL", "already");
};
const recorded = "✅ Recorded: Production (option 2)";
const SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";

describe("the bridge's responses, and what a platform with every operation does with them", () => {
  it("the credential sample looks like one", () => expect(looksLikeCredential(SECRET)).toBe(true));

  it.each<[string, () => Promise<BridgeResponse | undefined>, Call[]]>([
    ["a tap that answers: the toast", () => handler(PENDING).handle(press("choice")), [["toast", TEXTS.submitted]]],
    [
      "a tap on a question answered meanwhile: the toast, and the same privately",
      () => handler(PENDING, { resolve: terminal }).handle(press("choice")),
      [["toast", TEXTS.alreadyAnswered], ["reply", { reply: TEXTS.alreadyAnswered, private: true, replyTo: true }]],
    ],
    ["a tap on a closed question: the toast", () => handler(ANSWERED).handle(press("choice")), [["toast", TEXTS.alreadyAnswered]]],
    ["a tap in a chat the prompt never reached: not valid", () => handler(PENDING).handle({ ...press("choice"), chat: "999" }), [["toast", TEXTS.notValid]]],
    [
      "a tap by someone else: the toast, and the same privately",
      () => handler(PENDING).handle(press("choice", MALLORY)),
      [["toast", TEXTS.someoneElse], ["reply", { reply: TEXTS.someoneElse, private: true, replyTo: true }]],
    ],
    [
      "a late tap: the late confirmation as the toast",
      () => handler(EXPIRED, { resolve: () => LATE }).handle(press("choice")),
      [["toast", "✅ Recorded (late): Production (option 2)"]],
    ],
    [
      "Skip on an expired question: nothing to skip",
      () => handler(EXPIRED).handle(press("skip")),
      [["toast", TEXTS.lateSkip], ["reply", { reply: TEXTS.lateSkip, private: true, replyTo: true }]],
    ],
    ["Other… with modals: the modal", () => handler(PENDING).handle(press("other")), [["openModal", { questionId: "q1", title: TEXTS.modalTitle, label: "Where should this deploy?" }]]],
    ["Other… without modals: the request for own words", () => handler(PENDING, {}, "reply").handle(press("other")), [["askOwnWords", TEXTS.ownWordsPrompt, "q1"]]],
    [
      "a modal submit: the toast, then the confirmation about the question",
      () => handler(PENDING, { resolve: () => ({ ...ANSWERED, answers: { target: ["Canary"] } }) as QuestionRecord }).handle({ kind: "modal", questionId: "q1", text: "Canary", user: ADA, chat: CHAT }),
      [["toast", TEXTS.submitted], ["reply", { reply: "✅ Recorded: “Canary” (your own words)", replyTo: true, questionId: "q1" }]],
    ],
    ["a typed answer: the confirmation, in answer to it", () => handler(PENDING).handle(typed("2")), [["reply", { reply: recorded, replyTo: true, questionId: "q1" }]]],
    ["a typed credential: deleted, then the notice (not in answer to it)", () => handler(PENDING).handle(typed(SECRET)), [["deleteMessage"], ["reply", { reply: TEXTS.credential, private: true }]]],
    [
      "a typed reply the gateway refuses: no toast for a message, the private reply",
      () => handler(PENDING, { reply: terminal }).handle(typed("2")),
      [["reply", { reply: TEXTS.alreadyAnswered, private: true, replyTo: true }]],
    ],
    [
      "a typed answer from someone else in a group: a mark on it",
      () => handler({ ...PENDING, targets: [{ surface: "telegram", chat: "-100" }], deliveries: [{ surface: "telegram", chat: "-100", messageRef: "m1", deliveredAtMs: 1 }] } as QuestionRecord).handle({ kind: "text", text: "2", user: MALLORY, chat: "-100", direct: false, messageRef: "u1", replyToMessageRef: "m1" }),
      [["react", "refused"]],
    ],
  ])("%s", async (_name, respond, expected) => {
    const response = await respond();
    const { ops, calls } = recordingOps();
    await applyEffects(response ?? [], ops);
    expect(calls).toEqual(expected);
  });

  it("a typed credential the platform refused to delete: the notice that it is still visible", async () => {
    const { ops, calls } = recordingOps({ refuseDelete: true });
    await applyEffects((await handler(PENDING).handle(typed(SECRET)))!, ops);
    expect(calls).toEqual([["deleteMessage"], ["reply", { reply: TEXTS.credentialNotDeleted, private: true }]]);
  });

  it("a platform without toasts (Slack, Discord's modal): one private notice, the reply when there is one", async () => {
    const { ops, calls } = recordingOps({ without: ["toast"] });
    await applyEffects((await handler(PENDING).handle(press("choice")))!, ops);
    await applyEffects((await handler(PENDING, { resolve: terminal }).handle(press("choice")))!, ops);
    expect(calls).toEqual([
      ["reply", { reply: TEXTS.submitted, private: true }],
      ["reply", { reply: TEXTS.alreadyAnswered, private: true, replyTo: true }],
    ]);
  });

  it("every text is the platform's safe text, those behind a delete too", async () => {
    const cache = createRecordCache();
    cache.put(PENDING);
    const shout = createInboundHandler({ client: fakeClient(PENDING, {}), surface: "telegram", allowedUsers: [], cache, inflight: createInflightSends(), otherOpens: "reply", toPlatformText: (t) => t.toUpperCase() });
    expect(await shout.handle(typed(SECRET))).toEqual([
      { delete: true, ifDeleted: { reply: TEXTS.credential.toUpperCase(), private: true }, otherwise: { reply: TEXTS.credentialNotDeleted.toUpperCase(), private: true } },
    ]);
    expect(await shout.handle(press("other"))).toEqual([{ askOwnWords: TEXTS.ownWordsPrompt.toUpperCase(), questionId: "q1" }]);
  });
});
