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
 * { answers: [{ header, question, text }] | null, outcome: string } for a terminal record:
 * "Answered in Telegram by Ada", "⏭ Skipped on the web", "⌛ Expired — no answer", "✖ Cancelled via the API".
 */
export function summarize(record) {
  const by = record.by ? ` ${describeBy(record.by)}` : "";
  if (record.status === "answered") {
    const answers = record.questions.map((q) => ({
      header: q.header,
      question: q.question,
      text: (record.answers?.[q.id] ?? []).map((v) => answerText(q, v)).join(", ") || "(no answer)",
    }));
    return { answers, outcome: `✅ Answered${by}` };
  }
  if (record.reason === "delivery_failed") return { answers: null, outcome: `⚠ Not delivered${record.detail ? `: ${cut(oneLine(record.detail), 200)}` : ""}` };
  if (record.status === "expired" || record.reason === "expired") return { answers: null, outcome: "⌛ Expired — no answer" };
  if (record.reason === "skipped") return { answers: null, outcome: `⏭ Skipped${by}` };
  if (record.reason === "aborted") return { answers: null, outcome: "✖ Cancelled (the agent stopped)" };
  return { answers: null, outcome: `✖ Cancelled${by}` };
}
