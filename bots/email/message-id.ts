/**
 * The bot's Message-IDs: `<aub.<kind>.<random>.<signature>@<domain>>`. The kind says what the mail is (`p` a prompt,
 * `r` any other mail about a question: a reminder, a confirmation, the late answer taken); the signature is an HMAC of
 * the kind, the random part and the recipient's address, keyed with a secret (the SMTP URL). A reply names the mails it
 * answers (In-Reply-To, References), so the bot knows, with no state of its own and across restarts, which of them are
 * its own and to which address each was sent: a reply that names none of its mails, or only mails sent to another
 * address, is not an answer. A forged id does not carry a valid signature.
 */
import { randomBytes } from "node:crypto";
import { hmacOf, sameSecret } from "../kit/signature.ts";

export type MailKind = "p" | "r";

export interface OwnMessageId {
  id: string;
  kind: MailKind;
}

const OWN = /^<aub\.([pr])\.([0-9a-f]{24})\.([0-9a-f]{24})@[^<>@\s]+>$/u;

export function createMessageIds(secret: string, domain: string) {
  const sign = (kind: string, random: string, address: string) => hmacOf(secret, `${kind}.${random}.${address}`).slice(0, 24);
  return {
    /** A new Message-ID for a mail of `kind` to `address` (normalised). */
    next(kind: MailKind, address: string): string {
      const random = randomBytes(12).toString("hex");
      return `<aub.${kind}.${random}.${sign(kind, random, address)}@${domain}>`;
    },
    /** The bot's own id sent to `address`, or undefined (someone else's id, a forged one, one sent to another address). */
    ownFor(id: string, address: string): OwnMessageId | undefined {
      const match = OWN.exec(id.trim());
      if (!match) return undefined;
      const [, kind, random, signature] = match;
      return sameSecret(signature, sign(kind!, random!, address)) ? { id: id.trim(), kind: kind as MailKind } : undefined;
    },
    /** Whether `id` has the shape of the bot's ids (whoever it was sent to). */
    looksOwn: (id: string): boolean => OWN.test(id.trim()),
  };
}

export type MessageIds = ReturnType<typeof createMessageIds>;
