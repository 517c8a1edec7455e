/** The compact question-to-answer summary a resolved record leaves in the timeline (same words as src/render). */
const WHERE = {
  telegram: "in Telegram",
  discord: "in Discord",
  slack: "in Slack",
  web: "on the web",
  api: "via the API",
  cli: "via the CLI",
};
const OWN_WORDS_MAX = 80;

const oneLine = (text) => String(text).replace(/\s+/gu, " ").trim();

function cut(text, max) {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** "in Telegram by Ada", "on the web". */
export function describeBy(by) {
  const surface = oneLine(by.surface ?? "");
  const where = WHERE[surface.toLowerCase()] ?? `in ${cut(surface.charAt(0).toUpperCase() + surface.slice(1), 64)}`;
  const who = oneLine(by.userName ?? by.user ?? "");
  return who ? `${where} by ${cut(who, 64)}` : where;
}

/** A label as authored, or the person's own words quoted and cut short. */
export function answerText(question, value) {
  return question.options.some((o) => o.label === value) ? value : `“${cut(oneLine(value), OWN_WORDS_MAX)}”`;
}

/**
 * The outcome of a terminal record: { kind, icon, text, answers }. `answers` ([{ header, question, text }]) is set
 * when answered; `text` reads "Answered in Telegram by Ada", "Skipped on the web", "Expired — no answer",
 * "Cancelled via the API" or "Not delivered: …". The icon is decoration only.
 */
export function summarize(record) {
  const by = record.by ? ` ${describeBy(record.by)}` : "";
  if (record.status === "answered") {
    const answers = record.questions.map((q) => ({
      header: q.header,
      question: q.question,
      text: (record.answers?.[q.id] ?? []).map((v) => answerText(q, v)).join(", ") || "(no answer)",
    }));
    return { kind: "answered", icon: "✓", text: `Answered${by}`, answers };
  }
  if (record.reason === "delivery_failed") {
    return { kind: "failed", icon: "⚠", text: `Not delivered${record.detail ? `: ${cut(oneLine(record.detail), 200)}` : ""}`, answers: null };
  }
  if (record.status === "expired" || record.reason === "expired") return { kind: "expired", icon: "◔", text: "Expired — no answer", answers: null };
  if (record.reason === "skipped") return { kind: "skipped", icon: "↷", text: `Skipped${by}`, answers: null };
  if (record.reason === "aborted") return { kind: "cancelled", icon: "✕", text: "Cancelled (the agent stopped)", answers: null };
  return { kind: "cancelled", icon: "✕", text: `Cancelled${by}`, answers: null };
}
