import { createHmac } from "node:crypto";
import { hmacMatches, hmacOf } from "../kit/signature.ts";

/**
 * The key that signs the actions' context and the dialogs' state. Only the bot holds it: it is derived from the bot's
 * token (HMAC-SHA256 of a fixed label, keyed with MATTERMOST_BOT_TOKEN), so it is never configured, never sent, and
 * stays the same across restarts (old buttons keep working); rotating the token retires every button signed before.
 */
export function deriveActionKey(botToken: string): Buffer {
  return createHmac("sha256", botToken).update("ask-user-bridge/mattermost/action-context/v1").digest();
}

export function createSigner(key: Buffer) {
  const mac = (text: string) => hmacOf(key, text, "base64url");
  return {
    /** What a press's signature covers: the encoded callback (question and option), its target chat, the post's channel. */
    pressText: (data: string, chat: string, channel: string) => `press\n${data}\n${chat}\n${channel}`,
    text: mac,
    /** Constant-time comparison; anything that is not a string fails. */
    verify: (text: string, signature: unknown): boolean => typeof signature === "string" && hmacMatches(signature, key, text, { encoding: "base64url" }),
  };
}

export type Signer = ReturnType<typeof createSigner>;
