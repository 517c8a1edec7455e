import { applyEffects, callbackToEvent, TEXTS, type Bridge, type BridgeUser } from "../../src/bridge/index.ts";
import { decodeMatrixAnswerId } from "../../src/platforms/matrix/callback-data.ts";
import { MATRIX_POLL_RESPONSES } from "../../src/platforms/matrix/payload.ts";
import type { Log } from "../shared.ts";
import type { MatrixApi, MatrixRawEvent } from "./client.ts";
import { matrixMessageOps, matrixRef, matrixVoteOps, sendNotice, type MatrixPlace } from "./ops.ts";
import type { MatrixRooms } from "./rooms.ts";
import type { SyncBatch } from "./sync-loop.ts";

/** Event ids the bot sent lately, so a reply in a thread that answers one of them is taken as a reply to it. */
const OWN_EVENTS_KEPT = 5_000;

/**
 * The reply fallback older clients put before a reply's text (`> <@bot:server> the prompt…` lines, then a blank
 * line): not what the person typed.
 */
export function stripReplyFallback(body: string): string {
  const lines = body.split("\n");
  if (!lines[0]?.startsWith("> ")) return body;
  let i = 0;
  while (i < lines.length && lines[i]!.startsWith(">")) i++;
  if (i < lines.length && lines[i] === "") i++;
  return lines.slice(i).join("\n");
}

export interface MatrixInboundOptions {
  api: MatrixApi;
  rooms: MatrixRooms;
  botUserId: string;
  allowedUsers: readonly string[];
  log: Log;
}

/**
 * Translates Matrix in and out: each /sync batch's poll votes and typed messages become bridge events, and the
 * bridge's response is applied through Matrix's operations (./ops.ts). One room's events are handled in order, rooms
 * side by side; a batch settles once every event of it is recorded (its sync token is saved only then), while the
 * bot's answers to it go out in the background, in order within the room.
 */
export function createMatrixInbound(bridge: Pick<Bridge, "handle" | "sent">, { api, rooms, botUserId, allowedUsers, log }: MatrixInboundOptions) {
  const own = new Set<string>();
  const unreadable = new Set<string>();
  const replies = new Map<string, Promise<void>>();
  const noteOwn = (eventId: string) => {
    own.add(eventId);
    if (own.size > OWN_EVENTS_KEPT) own.delete(own.values().next().value!);
  };
  /** Runs the room's answers one after another, in the background. */
  const later = (roomId: string, answer: () => Promise<void>) => {
    const next = (replies.get(roomId) ?? Promise.resolve()).then(answer).catch((error) => log(`could not answer in ${roomId}`, error));
    replies.set(roomId, next);
  };

  async function userOf(roomId: string, sender: string): Promise<BridgeUser> {
    const name = await rooms.displayName(roomId, sender);
    return { id: sender, ...(name ? { name } : {}) };
  }

  async function onVote(roomId: string, event: MatrixRawEvent, vote: { answers?: unknown }): Promise<void> {
    const chat = rooms.chatOf(roomId);
    const user = await userOf(roomId, event.sender);
    const place: MatrixPlace & { eventId: string; user: BridgeUser } = { roomId, chat, eventId: event.event_id, user };
    const answers = Array.isArray(vote.answers) ? vote.answers : [];
    if (answers.length === 0) return; // a vote taken back ("spoiled"): nothing to answer
    const decoded = answers.length === 1 ? decodeMatrixAnswerId(answers[0]) : null;
    if (!decoded) {
      later(roomId, async () => void (await sendNotice(api, { ...place, replyTo: event.event_id }, TEXTS.notValid)));
      return;
    }
    const response = await bridge.handle(callbackToEvent(decoded, { user, chat }));
    later(roomId, () => applyEffects(response ?? [], matrixVoteOps(api, bridge, place)));
  }

  async function onMessage(roomId: string, event: MatrixRawEvent): Promise<void> {
    const { content } = event;
    if (content.msgtype !== "m.text" || typeof content.body !== "string") return;
    const relation = (content["m.relates_to"] ?? {}) as { rel_type?: string; event_id?: string; is_falling_back?: boolean; "m.in_reply_to"?: { event_id?: string } };
    if (relation.rel_type === "m.replace") return; // an edit of an earlier message, which was taken (or not) as it was
    const inReplyTo = relation["m.in_reply_to"]?.event_id;
    const threadRoot = relation.rel_type === "m.thread" ? relation.event_id : undefined;
    // In a thread: a reply to one of the bot's messages there answers that message, else the thread's root.
    const repliesTo = threadRoot ? (inReplyTo && !relation.is_falling_back && own.has(inReplyTo) ? inReplyTo : threadRoot) : inReplyTo;
    const chat = rooms.chatOf(roomId);
    const user = await userOf(roomId, event.sender);
    const direct = (await rooms.kindOf(roomId)) === "direct";
    const response = await bridge.handle({
      kind: "text",
      text: stripReplyFallback(content.body),
      user,
      chat,
      direct,
      messageRef: event.event_id,
      ...(repliesTo ? { replyToMessageRef: matrixRef(roomId, repliesTo) } : {}),
    });
    if (!response) return;
    const place = { roomId, chat, eventId: event.event_id, user, ...(threadRoot ? { threadRoot } : {}) };
    later(roomId, () => applyEffects(response, matrixMessageOps(api, bridge, place, log)));
  }

  async function onEvent(roomId: string, event: MatrixRawEvent): Promise<void> {
    if (event.state_key !== undefined) rooms.stateChanged(roomId, event.type, event.content ?? {});
    if (event.sender === botUserId) return noteOwn(event.event_id);
    if (!event.content || event.unsigned?.redacted_because) return;
    if ((MATRIX_POLL_RESPONSES as readonly string[]).includes(event.type)) {
      const vote = event.content[event.type] ?? event.content[MATRIX_POLL_RESPONSES.find((t) => event.content[t]) ?? ""];
      return onVote(roomId, event, (vote ?? {}) as { answers?: unknown });
    }
    if (event.type === "m.room.message") return onMessage(roomId, event);
    if (event.type === "m.room.encrypted" && !unreadable.has(roomId)) {
      unreadable.add(roomId); // said once per room
      log(`encrypted messages in ${roomId} cannot be read: this bot answers in unencrypted rooms only`);
    }
  }

  const mayInvite = (inviter: string | undefined) => allowedUsers.length === 0 || (inviter !== undefined && allowedUsers.includes(inviter));

  return {
    /** Sent by the bot itself (the adapter): a reply to it in a thread counts as a reply to it. */
    noteOwn,
    async onBatch(batch: SyncBatch): Promise<void> {
      for (const data of batch.accountData) if (data.type === "m.direct") rooms.directChanged(data.content);
      for (const { roomId, inviter, direct } of batch.invites) {
        if (!mayInvite(inviter)) {
          log(`not joining ${roomId}: invited by ${inviter ?? "someone unknown"}, who is not in MATRIX_ALLOWED_USERS`);
          continue;
        }
        try {
          await api.join(roomId);
          log(`joined ${roomId} (invited by ${inviter ?? "someone"}${direct ? ", as a direct message" : ""})`);
          // A DM the person opened is their DM target from now on (matrix:@them), kept in the account's m.direct.
          if (direct && inviter) await rooms.markDirect(inviter, roomId);
        } catch (error) {
          log(`could not join ${roomId}`, error);
        }
      }
      await Promise.all(
        batch.rooms.map(async ({ roomId, state, timeline }) => {
          for (const event of state) if (event.state_key !== undefined) rooms.stateChanged(roomId, event.type, event.content ?? {});
          // The first sync of a new bot: earlier messages were not meant for it (it had sent no prompt yet).
          if (batch.initial) return;
          for (const event of timeline) {
            try {
              await onEvent(roomId, event);
            } catch (error) {
              log(`event ${event.event_id} in ${roomId} failed`, error);
            }
          }
        }),
      );
    },
  };
}

export type MatrixInbound = ReturnType<typeof createMatrixInbound>;
