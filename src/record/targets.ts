import { SURFACES, type Surface } from "../contract/result.ts";
import type { Target } from "./record.ts";
import { EXAMPLE_TARGETS, PLATFORMS } from "../platforms/descriptors.ts";
import { isPlatform } from "../platforms/index.ts";

const CHAT_PATTERN = /^[A-Za-z0-9_@.\-]{1,128}$/;
const USER_PATTERN = /^[A-Za-z0-9_@.\-]{1,128}$/;

export type TargetParse = { ok: true; target: Target } | { ok: false; message: string };

/**
 * Parses a target in text form: `SURFACE:CHAT`, `SURFACE:CHAT:USER+USER`, or `web`.
 * Examples: EXAMPLE_TARGETS (one per platform, `SURFACE:CHAT`), the same with `:42+77` (only those users), and `web`.
 */
export function parseTarget(text: string): TargetParse {
  const parts = text.trim().split(":");
  const surface = parts[0]?.toLowerCase() as Surface;
  if (!SURFACES.includes(surface)) {
    return { ok: false, message: `"${text}": unknown surface; use one of ${SURFACES.join(", ")} (e.g. ${EXAMPLE_TARGETS[0]})` };
  }
  if (surface === "web") {
    return parts.length === 1 ? { ok: true, target: { surface } } : { ok: false, message: `"${text}": the web target takes no chat; write just "web"` };
  }
  const chatPattern = isPlatform(surface) ? (PLATFORMS[surface] as { chatPattern?: RegExp }).chatPattern : undefined;
  if (chatPattern) return parsePatternTarget(text, surface, chatPattern);
  if (parts.length < 2 || parts.length > 3) return { ok: false, message: `"${text}": expected ${surface}:CHAT or ${surface}:CHAT:USER+USER` };
  const chat = parts[1]!;
  if (!CHAT_PATTERN.test(chat)) return { ok: false, message: `"${text}": the chat id "${chat}" is not valid` };
  if (parts.length === 2) return { ok: true, target: { surface, chat } };
  const users = parts[2]!.split("+");
  if (users.some((u) => !USER_PATTERN.test(u))) return { ok: false, message: `"${text}": users must be ids separated by "+"` };
  return { ok: true, target: { surface, chat, users } };
}

/** A surface whose chat ids may hold `:` (its descriptor's `chatPattern`): the chat is what the pattern matches. */
function parsePatternTarget(text: string, surface: Surface, chatPattern: RegExp): TargetParse {
  const rest = text.trim().slice(surface.length + 1);
  const match = new RegExp(`^(${chatPattern.source})(?::([^:]*))?$`, "u").exec(rest);
  if (!match) return { ok: false, message: `"${text}": expected ${surface}:CHAT or ${surface}:CHAT:USER+USER, with a chat id such as ${EXAMPLE_TARGETS.find((t) => t.startsWith(`${surface}:`)) ?? surface}` };
  const chat = match[1]!;
  if (match[2] === undefined) return { ok: true, target: { surface, chat } };
  const users = match[2].split("+");
  if (users.some((u) => !USER_PATTERN.test(u))) return { ok: false, message: `"${text}": users must be ids separated by "+"` };
  return { ok: true, target: { surface, chat, users } };
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
  if (target.surface === "web") return "web";
  return [target.surface, target.chat, target.users?.join("+")].filter(Boolean).join(":");
}

/** True when the target is a chat on a bot surface (not the web UI). */
export function isChatTarget(target: Target): boolean {
  return target.surface !== "web";
}
