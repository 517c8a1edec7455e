import { describe, it, expect } from "vitest";
import { callbackToEvent } from "../../src/bridge/index.ts";
import type { PromptCallback } from "../../src/render/index.ts";

const user = { id: "u1", name: "Ada" };
const chat = "c1";

describe("callbackToEvent: one mapping from a decoded button or modal to the inbound event", () => {
  it.each<[string, PromptCallback, string | undefined, object]>([
    ["a choice", { questionId: "q1", action: { kind: "choice", optionIndex: 2 } }, undefined, { kind: "choice", questionId: "q1", optionIndex: 2 }],
    ["Other…", { questionId: "q1", action: { kind: "other" } }, undefined, { kind: "other", questionId: "q1" }],
    ["Skip", { questionId: "q1", action: { kind: "skip" } }, undefined, { kind: "skip", questionId: "q1" }],
    ["the Other… modal's answer", { questionId: "q1", action: { kind: "other" } }, "Tuesday", { kind: "modal", questionId: "q1", text: "Tuesday" }],
    ["an empty modal answer", { questionId: "q1", action: { kind: "other" } }, "", { kind: "modal", questionId: "q1", text: "" }],
  ])("%s", (_name, callback, text, event) => {
    expect(callbackToEvent(callback, { user, chat, ...(text !== undefined ? { text } : {}) })).toEqual({ user, chat, ...event });
  });
});
