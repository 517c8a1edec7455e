import { MatrixError } from "matrix-js-sdk";
import { PermanentSendError } from "../../src/bridge/index.ts";
import type { ChatKind } from "../../src/render/index.ts";
import type { MatrixApi } from "./client.ts";

/** `m.direct` account data: each person's DM rooms with this account (the spec's way to mark a room as a DM). */
type DirectMap = Record<string, string[]>;

/**
 * What the bot knows of its rooms: which are direct messages (a target that is a user id gets one, found in or added
 * to the account's `m.direct`, so a restarted bot or a second process finds the same room), which are encrypted, and
 * who is in each. A target chat is a room id (`!room:server`) or, for a DM, the person's user id (`@ada:server`); an
 * event's chat is that again: the person's id in their DM room, else the room id.
 */
export function createMatrixRooms(api: MatrixApi, botUserId: string) {
  const dmOfUser = new Map<string, string>();
  const userOfDm = new Map<string, string>();
  const encrypted = new Map<string, boolean>();
  const members = new Map<string, Promise<Record<string, { display_name?: string }>>>();
  const opening = new Map<string, Promise<string>>();
  const lastKind = new Map<string, ChatKind>();

  function remember(direct: DirectMap | undefined): void {
    for (const [user, rooms] of Object.entries(direct ?? {})) {
      const room = Array.isArray(rooms) ? rooms.at(-1) : undefined;
      if (typeof room !== "string" || dmOfUser.has(user)) continue;
      dmOfUser.set(user, room);
      userOfDm.set(room, user);
    }
  }

  const joined = (roomId: string) => {
    let found = members.get(roomId);
    if (!found) {
      found = api.joinedMembers(roomId).then((r) => r.joined ?? {});
      found.catch(() => members.delete(roomId));
      members.set(roomId, found);
    }
    return found;
  };

  async function openDm(userId: string): Promise<string> {
    const direct = (await api.accountData<DirectMap>(botUserId, "m.direct")) ?? {};
    remember(direct);
    const known = dmOfUser.get(userId);
    if (known) return known;
    let roomId: string;
    try {
      ({ room_id: roomId } = await api.createRoom({ is_direct: true, invite: [userId], preset: "trusted_private_chat" }));
    } catch (error) {
      if (error instanceof MatrixError && error.httpStatus !== undefined && error.httpStatus < 500 && error.httpStatus !== 429) {
        throw new PermanentSendError(`matrix: cannot open a direct message with ${userId}: ${error.errcode ?? error.httpStatus} ${error.data?.error ?? ""}`.trim());
      }
      throw error;
    }
    await api.setAccountData(botUserId, "m.direct", { ...direct, [userId]: [...(direct[userId] ?? []), roomId] });
    dmOfUser.set(userId, roomId);
    userOfDm.set(roomId, userId);
    return roomId;
  }

  return {
    /** Loads the account's DMs (m.direct). */
    async load(): Promise<void> {
      remember(await api.accountData<DirectMap>(botUserId, "m.direct"));
    },
    /** The room a target chat's prompt goes to: the room itself, or the DM with that person (opened when missing). */
    async roomFor(chat: string): Promise<string> {
      if (!chat.startsWith("@")) return chat;
      const known = dmOfUser.get(chat);
      if (known) return known;
      let open = opening.get(chat);
      if (!open) {
        open = openDm(chat).finally(() => opening.delete(chat));
        opening.set(chat, open);
      }
      return open;
    },
    /** The target chat an event in `roomId` belongs to. */
    chatOf: (roomId: string): string => userOfDm.get(roomId) ?? roomId,
    /** A DM (a user target, a room in m.direct, or a room of two: the bot and one person) or a group. */
    async kindOf(roomId: string): Promise<ChatKind> {
      if (userOfDm.has(roomId)) return "direct";
      let kind: ChatKind;
      try {
        kind = Object.keys(await joined(roomId)).length <= 2 ? "direct" : "group";
      } catch {
        kind = "group";
      }
      lastKind.set(roomId, kind);
      return kind;
    },
    /** The same, from what is known now (for the copy's fingerprint): a user target is a DM, else the last lookup. */
    kindKnown(chat: string): ChatKind {
      return chat.startsWith("@") || userOfDm.has(chat) ? "direct" : (lastKind.get(chat) ?? "group");
    },
    async displayName(roomId: string, userId: string): Promise<string | undefined> {
      try {
        return (await joined(roomId))[userId]?.display_name ?? undefined;
      } catch {
        return undefined;
      }
    },
    /** Whether the room is end-to-end encrypted (its m.room.encryption state); once on, it can never be turned off. */
    async isEncrypted(roomId: string): Promise<boolean> {
      const known = encrypted.get(roomId);
      if (known !== undefined) return known;
      const state = await api.state(roomId, "m.room.encryption");
      const on = typeof state?.algorithm === "string";
      encrypted.set(roomId, on);
      return on;
    },
    /** Sync saw a state event: encryption turned on, or the members changed. */
    stateChanged(roomId: string, type: string, content: Record<string, unknown>): void {
      if (type === "m.room.encryption" && typeof content.algorithm === "string") encrypted.set(roomId, true);
      if (type === "m.room.member") members.delete(roomId);
    },
    /** A DM someone opened with the bot: it becomes the room for that person's target, in m.direct too. */
    async markDirect(userId: string, roomId: string): Promise<void> {
      const direct = (await api.accountData<DirectMap>(botUserId, "m.direct")) ?? {};
      const rooms = direct[userId] ?? [];
      if (!rooms.includes(roomId)) await api.setAccountData(botUserId, "m.direct", { ...direct, [userId]: [...rooms, roomId] });
      const before = dmOfUser.get(userId);
      if (before) userOfDm.delete(before);
      dmOfUser.set(userId, roomId);
      userOfDm.set(roomId, userId);
    },
    /** Sync saw the account's m.direct change. */
    directChanged: (direct: DirectMap) => remember(direct),
  };
}

export type MatrixRooms = ReturnType<typeof createMatrixRooms>;
