import type { QuestionRecord, Target } from "../../record/record.ts";
import { webTargetAdmits } from "../../record/targets.ts";

/**
 * A record as a person (`web:<name>`) is shown it (issue 37 §1): of the targets, only the web ones that admit it; of
 * the answer links, only the `web` one and its own `web:<name>` one (a link answers as its target: `web:bob`'s
 * records bob); and no other target's chat or user ids, so not the chat copies (deliveries, their delivery trouble,
 * reminder copies), nor the other targets of an escalation. Who answered keeps the surface, how and the display
 * name; from a chat, without the chat's and the user's ids.
 */
export function personView(name: string, record: QuestionRecord): QuestionRecord {
  const admits = (target: Target) => webTargetAdmits(target, name);
  const own = new Set(["web", `web:${name}`]);
  const { links, targetStates: _states, reminderCopies: _copies, escalate, escalated, by, lateAnswer, ...rest } = record;
  const shownLinks = links?.filter((link) => own.has(link.target));
  const steps = <S extends { targets: Target[] }>(list: S[] | undefined): S[] => (list ?? []).map((step) => ({ ...step, targets: step.targets.filter(admits) })).filter((step) => step.targets.length > 0);
  const shownEscalate = steps(escalate);
  const shownEscalated = steps(escalated);
  return {
    ...rest,
    targets: record.targets.filter(admits),
    deliveries: record.deliveries.filter((delivery) => delivery.surface === "web"),
    ...(shownLinks?.length ? { links: shownLinks } : {}),
    ...(shownEscalate.length ? { escalate: shownEscalate } : {}),
    ...(shownEscalated.length ? { escalated: shownEscalated } : {}),
    ...(by ? { by: byShownToPerson(by) } : {}),
    ...(lateAnswer ? { lateAnswer: { ...lateAnswer, by: byShownToPerson(lateAnswer.by) } } : {}),
  };
}

/** Who answered, as a person is shown it: from a chat, without the chat's and the user's ids (web names are kept). */
export function byShownToPerson<B extends { surface: string; user?: string; chat?: string }>(by: B): B {
  if (by.surface === "web") return by;
  const { user: _user, chat: _chat, ...rest } = by;
  return rest as B;
}
