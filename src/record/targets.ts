import { SURFACES, type Surface } from "../contract/result.ts";
import type { Target, TargetState } from "./record.ts";
import { EXAMPLE_TARGETS, PLATFORM_LIST } from "../platforms/descriptors.ts";
import { PLATFORM_SURFACES, type PlatformName } from "../platforms/index.ts";

/** "no <Platform> bot is connected": the gateway's own `waiting` reason, with the platform's title from the registry. */
export function noBotReason(surface: string): string {
  const title = Object.hasOwn(PLATFORM_SURFACES, surface) ? PLATFORM_SURFACES[surface as PlatformName].title : surface;
  return `no ${title} bot is connected`;
}

/**
 * A `waiting` state a bot reported (question.deliveryFailed with `waiting`): the copy waits for the person (e.g.
 * the template went out, the prompt follows their reply), not for a bot to connect (`noBotReason`, the gateway's).
 */
export const waitsForPerson = (state: TargetState): boolean => state.state === "waiting" && state.reason !== noBotReason(state.surface);

const CHAT_PATTERN = /^[A-Za-z0-9_@.\-]{1,128}$/;
const USER_PATTERN = /^[A-Za-z0-9_@.\-]{1,128}$/;

/** A surface whose ids hold a colon writes them its own way (its descriptor's `targetIds`): `CHAT` or `CHAT:USER+USER`. */
const OWN_FORMS = new Map(
  PLATFORM_LIST.flatMap((p) =>
    p.targetIds ? [[p.surface as string, { whole: new RegExp(`^(${p.targetIds.chat})(?::(.+))?$`, "u"), user: new RegExp(`^${p.targetIds.user}$`, "u") }] as const] : [],
  ),
);

/**
 * A person's name on the web: what `token create --role person --name` takes, what a `web:<name>` target names, and
 * what the person's answers record as `by.user`. Lowercase, so `web:Alice` and a person `alice` cannot differ by case
 * alone (the text form lowercases what it reads); letters, digits and `. _ @ -`, starting with a letter or digit.
 */
export const PERSON_NAME_PATTERN = /^[a-z0-9][a-z0-9_.@-]{0,63}$/;
export const PERSON_NAME_RULE = "1-64 lowercase letters, digits and . _ @ -, starting with a letter or digit";

/** True when `name` is a person's name (PERSON_NAME_PATTERN). */
export const isPersonName = (name: string): boolean => PERSON_NAME_PATTERN.test(name);

/**
 * Whether a web target admits a person: a `web` target (no `users`) admits anyone signed in, `web:<name>` only that
 * person. Undefined `person`: someone who is not a person (the admin), admitted by a `web` target for anyone only.
 */
export function webTargetAdmits(target: Target, person: string | undefined): boolean {
  if (target.surface !== "web") return false;
  return !target.users?.length || (person !== undefined && target.users.includes(person));
}

export type TargetParse = { ok: true; target: Target } | { ok: false; message: string };

/**
 * Parses a target in text form: `SURFACE:CHAT`, `SURFACE:CHAT:USER+USER`, `web` (anyone signed in to the Control UI)
 * or `web:NAME` (that person only; `web:NAME+NAME` for several).
 * Examples: EXAMPLE_TARGETS (one per platform, `SURFACE:CHAT`), the same with `:42+77` (only those users), `web`,
 * and `web:alice`.
 */
export function parseTarget(text: string): TargetParse {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(":");
  const surface = (colon === -1 ? trimmed : trimmed.slice(0, colon)).toLowerCase() as Surface;
  if (!SURFACES.includes(surface)) {
    return { ok: false, message: `"${text}": unknown surface; use one of ${SURFACES.join(", ")} (e.g. ${EXAMPLE_TARGETS[0]})` };
  }
  if (surface === "web") return colon === -1 ? { ok: true, target: { surface } } : parseWebPeople(text, trimmed.slice(colon + 1));
  if (colon === -1) return { ok: false, message: `"${text}": expected ${surface}:CHAT or ${surface}:CHAT:USER+USER` };
  const rest = trimmed.slice(colon + 1);
  const own = OWN_FORMS.get(surface);
  let chat: string;
  let userPart: string | undefined;
  if (own) {
    const match = own.whole.exec(rest);
    if (!match) return { ok: false, message: `"${text}": expected ${surface}:CHAT or ${surface}:CHAT:USER+USER, the chat id as ${surface} writes it` };
    [chat, userPart] = [match[1]!, match[2]];
  } else {
    const parts = rest.split(":");
    if (parts.length > 2) return { ok: false, message: `"${text}": expected ${surface}:CHAT or ${surface}:CHAT:USER+USER` };
    chat = parts[0]!;
    if (!CHAT_PATTERN.test(chat)) return { ok: false, message: `"${text}": the chat id "${chat}" is not valid` };
    userPart = parts[1];
  }
  if (userPart === undefined) return { ok: true, target: { surface, chat } };
  const users = userPart.split("+");
  const userPattern = own?.user ?? USER_PATTERN;
  if (users.some((u) => !userPattern.test(u))) return { ok: false, message: `"${text}": users must be ids separated by "+"` };
  return { ok: true, target: { surface, chat, users } };
}

/** `web:NAME` or `web:NAME+NAME`: the people (lowercased) a web target is for. */
function parseWebPeople(text: string, rest: string): TargetParse {
  const users = rest.toLowerCase().split("+");
  if (users.some((name) => !isPersonName(name))) {
    return { ok: false, message: `"${text}": expected web (anyone signed in) or web:NAME, a person's name of ${PERSON_NAME_RULE}` };
  }
  return { ok: true, target: { surface: "web", users: [...new Set(users)] } };
}

/** Parses a comma-separated list of targets; throws naming the bad one. */
export function parseTargetList(text: string): Target[] {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const parsed = parseTarget(t);
      if (!parsed.ok) throw new Error(parsed.message);
      return parsed.target;
    });
}

export function formatTarget(target: Target): string {
  if (target.surface === "web") return target.users?.length ? `web:${target.users.join("+")}` : "web";
  return [target.surface, target.chat, target.users?.join("+")].filter(Boolean).join(":");
}

/** True when the target is a chat on a bot surface (not the web UI). */
export function isChatTarget(target: Target): boolean {
  return target.surface !== "web";
}
