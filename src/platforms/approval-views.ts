/**
 * Whether a surface's copy of an approval shows the whole subject (issue 35), for the gateway: an approving answer
 * (Allow or a grant) from a chat whose copy could not show all of it is refused with REVIEW_REQUIRED. Each platform
 * answers with the very computation its prompt renderer uses (`<platform>ApprovalParts`), over every variant of the
 * copy (a direct message, a group chat with its reply hint, an expired copy still taking a late answer under a line
 * that says so): if any variant would cut, the answer is false.
 */
import type { QuestionRecord } from "../record/record.ts";
import type { ApprovalPromptParts } from "../render/approval-prompt.ts";
import { LATE_OPEN_SUMMARY } from "../render/summary.ts";
import type { Surface } from "./surfaces.ts";
import { telegramApprovalParts } from "./telegram/payload.ts";
import { discordApprovalParts } from "./discord/payload.ts";
import { slackApprovalParts } from "./slack/payload.ts";
import { whatsappApprovalParts } from "./whatsapp/payload.ts";
import { mattermostApprovalParts } from "./mattermost/payload.ts";
import { teamsApprovalParts, type TeamsChatKind } from "./teams/payload.ts";
import { matrixApprovalParts } from "./matrix/payload.ts";
import { emailApprovalView } from "./email/payload.ts";

/** The variants of a chat copy: where it is, and whether it is the late copy. */
const CHAT_VARIANTS = [{ chat: "direct" }, { chat: "group" }, { chat: "group", lead: LATE_OPEN_SUMMARY, late: true }] as const;
const TEAMS_VARIANTS = (["personal", "groupChat", "channel"] as const).flatMap((kind: TeamsChatKind) => [{ kind }, { kind, lead: LATE_OPEN_SUMMARY, late: true }]);

const whole = (parts: ApprovalPromptParts) => parts.view.complete;

const SHOWN_WHOLE: Record<Surface, (record: QuestionRecord) => boolean> = {
  telegram: (record) => CHAT_VARIANTS.every((v) => whole(telegramApprovalParts(record, v))),
  discord: (record) => CHAT_VARIANTS.every((v) => whole(discordApprovalParts(record, v))),
  slack: (record) => CHAT_VARIANTS.every((v) => whole(slackApprovalParts(record, v))),
  whatsapp: (record) => CHAT_VARIANTS.every((v) => whole(whatsappApprovalParts(record, v))),
  mattermost: (record) => CHAT_VARIANTS.every((v) => whole(mattermostApprovalParts(record, v))),
  teams: (record) => TEAMS_VARIANTS.every((v) => whole(teamsApprovalParts(record, v))),
  matrix: (record) => CHAT_VARIANTS.every((v) => whole(matrixApprovalParts(record, v))),
  // A mail has no real limit: it always carries the whole subject.
  email: (record) => emailApprovalView(record)?.complete === true,
  // The Control UI shows everything.
  web: () => true,
};

/**
 * True when `surface`'s prompt for this approval record shows the whole subject, in every variant of the copy; true
 * for the web, and for a record that is no approval (nothing to show). The gateway refuses an Allow (or a grant) from
 * a chat surface where this is false.
 */
export function approvalShownWhole(record: QuestionRecord, surface: Surface): boolean {
  if (!record.approval) return true;
  // A prompt of another shape than one single-select question has no approval copy to speak of: not shown whole.
  if (surface !== "web" && surface !== "email" && (record.questions.length !== 1 || record.questions[0]!.multiSelect)) return false;
  return SHOWN_WHOLE[surface](record);
}
