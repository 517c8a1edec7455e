import { createHash, randomBytes } from "node:crypto";
import type { BotName } from "../../platforms/surfaces.ts";
import type { Role } from "../store/kit/credentials.ts";

// The roles live with the credential record they are stored in (src/gateway/store/kit/credentials.ts).
export { isRole, ROLES, type Role } from "../store/kit/credentials.ts";

/**
 * Who is calling, decided by the gateway from the credential, never from the request:
 * - admin: GATEWAY_TOKEN, everything (today's setups keep working);
 * - agent: ask, wait, get, list, cancel, abort runs;
 * - bot: report deliveries, claim copies, resolve or reply, as its own surface only;
 * - web: the Control UI's session signed in with GATEWAY_TOKEN, answering as `web`;
 * - person: someone answering on the web under their own name (a `person` credential, used as a bearer token or
 *   signed in to the Control UI): the web's methods, for `web` and `web:<name>` questions only, answers recorded
 *   `by: { surface: "web", user: <name> }`.
 */
export type Principal =
  | { kind: "admin" }
  | { kind: "agent"; credentialId: string; name: string }
  | { kind: "bot"; surface: BotName; credentialId: string; name: string }
  | { kind: "web" }
  | { kind: "person"; credentialId: string; name: string };

export const ADMIN: Principal = { kind: "admin" };
export const WEB: Principal = { kind: "web" };

export function principalFor(credential: { id: string; name: string; role: Role }): Principal {
  if (credential.role === "agent") return { kind: "agent", credentialId: credential.id, name: credential.name };
  if (credential.role === "person") return { kind: "person", credentialId: credential.id, name: credential.name };
  return { kind: "bot", surface: credential.role.slice("bot:".length) as BotName, credentialId: credential.id, name: credential.name };
}

/** What the gateway stores of a token: its SHA-256, so a leaked database gives no usable token. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A new scoped token (`aub_` + 256 random bits) and its id (shown by `token list`, used by `token revoke`). */
export function newScopedToken(): { id: string; token: string } {
  return { id: randomBytes(6).toString("hex"), token: `aub_${randomBytes(32).toString("base64url")}` };
}

/** A scoped token's shape: tells a scoped token from the admin token without a lookup. */
export const SCOPED_TOKEN_PATTERN = /^aub_[A-Za-z0-9_-]{43}$/;
