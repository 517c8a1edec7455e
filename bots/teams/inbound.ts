/**
 * Translates Teams in: every activity the channel posts (after the SDK checked its token) refreshes the conversation's
 * stored reference; an Action.Submit from a prompt card and a typed message become bridge events, whose response is
 * applied through `./ops.ts`. What counts as a typed answer: in a personal chat any message; in a channel a reply in
 * the prompt's thread, in a group chat a reply to the prompt, and anywhere a message that @mentions the bot (the
 * mention stripped before parsing). Only an activity the Bot Framework signed counts at all, and one whose token names
 * no service URL cannot move a known conversation elsewhere (./trust.ts).
 */
import type { Activity } from "@microsoft/agents-activity";
import { applyEffects, callbackToEvent, TEXTS, type Bridge, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeTeamsSubmitData } from "../../src/platforms/teams/callback-data.ts";
import { teamsTextToPlain, toTeamsText } from "../../src/platforms/teams/escaping.ts";
import { TEAMS_ANSWER_INPUT_ID, TEAMS_SUBMIT_FIELD } from "../../src/platforms/teams/payload.ts";
import type { Log } from "../shared.ts";
import type { TeamsConnector } from "./connector.ts";
import { teamsOps, type TeamsPlace } from "./ops.ts";
import { baseConversationId, threadRootOf, type TeamsReference, type TeamsReferenceStore } from "./references.ts";
import { trustOf, type TokenClaims } from "./trust.ts";

/** The conversation reference an authenticated activity gives (Teams sends the tenant in channelData too). */
export function referenceOf(activity: Activity, nowMs = Date.now()): TeamsReference | undefined {
  const { serviceUrl, conversation, recipient, from } = activity;
  const channelId = activity.channelId;
  if (!serviceUrl || !conversation?.id || !recipient?.id || !channelId) return undefined;
  const channelData = activity.channelData as { tenant?: { id?: unknown } } | undefined;
  const tenantId = conversation.tenantId ?? (typeof channelData?.tenant?.id === "string" ? channelData.tenant.id : undefined);
  const conversationType = conversation.conversationType;
  const personal = conversationType === "personal";
  return {
    serviceUrl,
    channelId,
    conversation: {
      id: baseConversationId(conversation.id),
      ...(conversationType ? { conversationType } : {}),
      ...(tenantId ? { tenantId } : {}),
      ...(conversation.isGroup !== undefined ? { isGroup: conversation.isGroup } : {}),
    },
    bot: { id: recipient.id, ...(recipient.name ? { name: recipient.name } : {}) },
    ...(personal && from?.id ? { user: { id: from.id, ...(from.name ? { name: from.name } : {}), ...(from.aadObjectId ? { aadObjectId: from.aadObjectId } : {}) } } : {}),
    capturedAtMs: nowMs,
  };
}

/** The person: their Entra object id (what TEAMS_ALLOWED_USERS and a personal target name), else their Teams id. */
export const teamsUserOf = (activity: Activity): BridgeUser => {
  const from = activity.from!;
  return { id: from.aadObjectId ?? from.id!, ...(from.name ? { name: from.name } : {}) };
};

/** The `<at>…</at>` texts of the mentions of the bot in a message. */
function botMentions(activity: Activity): string[] {
  const bot = activity.recipient?.id;
  return (activity.entities ?? []).flatMap((entity) => {
    const e = entity as { type?: unknown; mentioned?: { id?: unknown }; text?: unknown };
    return e.type === "mention" && e.mentioned?.id === bot && typeof e.text === "string" ? [e.text] : [];
  });
}

export interface TeamsInbound {
  /** Handles one authenticated activity; `claims` are its verified token's (the SDK's `TurnContext.identity`). */
  handle(activity: Activity, claims: TokenClaims | undefined): Promise<void>;
}

export function createTeamsInbound(options: {
  bridge: Pick<Bridge, "handle" | "sent">;
  connector: TeamsConnector;
  references: TeamsReferenceStore;
  tenantId: string | undefined;
  log: Log;
}): TeamsInbound {
  const { bridge, connector, references, tenantId, log } = options;

  return {
    async handle(activity, claims) {
      const trust = trustOf(claims);
      // A token from the tenant's own authority (anyone there can get one for the app) is not Teams speaking: its
      // activity names no one and changes no conversation.
      if (!trust.botFramework) return log(`ignored an activity of type ${activity.type} whose token the Bot Framework did not issue (issuer ${trust.issuer || "none"})`);
      const captured = referenceOf(activity);
      if (!captured) return log(`an activity of type ${activity.type} came without a conversation or service URL`);
      if (tenantId && captured.conversation.tenantId && captured.conversation.tenantId.toLowerCase() !== tenantId.toLowerCase()) {
        return log(`ignored an activity from tenant ${captured.conversation.tenantId} (TEAMS_TENANT_ID is ${tenantId})`);
      }
      const fresh = references.remember(captured, { keepOrigin: !trust.namesServiceUrl });
      // The bot answers where the conversation is known to be: a token naming no service URL may not have moved it.
      const reference = trust.namesServiceUrl ? captured : (references.find(captured.conversation.id) ?? captured);
      // What ops need to target it: the first time the bot hears from a conversation, its target is logged.
      const target = reference.conversation.conversationType === "personal" ? fresh.find((key) => key === reference.user?.aadObjectId) : fresh[0];
      if (target) log(`kept the conversation reference of teams:${target} (${reference.conversation.conversationType ?? "conversation"}${reference.user?.name ? ` with ${reference.user.name}` : ""})`);
      if (activity.type !== "message" || !activity.from?.id || activity.from.id === activity.recipient?.id) return;

      const kind = reference.conversation.conversationType;
      const personal = kind === "personal";
      const user = teamsUserOf(activity);
      const chat = personal ? user.id : reference.conversation.id;
      const inThread = threadRootOf(activity.conversation!.id);
      const value = activity.value as Record<string, unknown> | undefined;

      if (value && typeof value === "object" && TEAMS_SUBMIT_FIELD in value) {
        // An Action.Submit: the card is the activity it replies to; in a channel the reply goes in the card's thread.
        const card = activity.replyToId;
        const place: TeamsPlace = { reference, chat, user: user.id, typed: false, ...(kind === "channel" && (inThread ?? card) ? { threadRoot: (inThread ?? card)! } : {}) };
        const decoded = decodeTeamsSubmitData(value[TEAMS_SUBMIT_FIELD]);
        const ops = teamsOps(connector, bridge, log, place);
        if (!decoded) return applyEffects([{ reply: toTeamsText(TEXTS.notValid) }], ops);
        const words = value[TEAMS_ANSWER_INPUT_ID];
        const text = decoded.action.kind === "other" ? (typeof words === "string" ? words : "") : undefined;
        const response = await bridge.handle(callbackToEvent(decoded, { user, chat, ...(text !== undefined ? { text } : {}) }));
        if (response) await applyEffects(response, ops);
        return;
      }

      if (typeof activity.text !== "string" || activity.text.trim() === "") return;
      const mentions = botMentions(activity);
      // In a group or channel, a message that @mentions the bot is addressed to it: it counts as a direct message does.
      const direct = personal || mentions.length > 0;
      const replyTo = kind === "channel" ? inThread : activity.replyToId;
      const place: TeamsPlace = { reference, chat, user: user.id, typed: true, ...(kind === "channel" ? { threadRoot: inThread ?? activity.id! } : {}) };
      const response = await bridge.handle({
        kind: "text",
        text: teamsTextToPlain(activity.text, mentions),
        user,
        chat,
        direct,
        ...(activity.id ? { messageRef: activity.id } : {}),
        ...(replyTo ? { replyToMessageRef: replyTo } : {}),
      });
      if (response) await applyEffects(response, teamsOps(connector, bridge, log, place));
    },
  };
}
