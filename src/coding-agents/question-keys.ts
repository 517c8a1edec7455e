import { LIMITS } from "../contract/schema.ts";
import { cutGraphemes } from "../kernel/text.ts";
import { quoteForPrompt } from "./prompt-text.ts";

/**
 * A snake_case question id from an agent's own key or header ("Auth method" → `auth_method`, "123" → `q_123`),
 * unique within `taken` (`_2`, `_3` …), or `fallback` when nothing of it is left.
 */
export function uniqueId(text: string, taken: Set<string>, fallback: string): string {
  const words = text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  const base = (words === "" ? fallback : /^[a-z]/.test(words) ? words : `q_${words}`).slice(0, LIMITS.idMaxLength - 4).replace(/_+$/, "");
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

/**
 * A header as the contract shows it (hidden characters shown, cut to 12 characters), numbered when another in the
 * same set reads the same (headers are compared case-insensitively, as typed replies key by them), or `fallback`.
 */
export function uniqueHeader(header: string, taken: Set<string>, fallback: string): string {
  const cut = cutGraphemes(quoteForPrompt(header, LIMITS.headerMaxLength), LIMITS.headerMaxGraphemes).trim() || fallback;
  let candidate = cut;
  for (let n = 2; taken.has(candidate.toLocaleLowerCase()); n++) {
    const suffix = ` ${n}`;
    candidate = cutGraphemes(cut, LIMITS.headerMaxGraphemes - suffix.length).trim() + suffix;
  }
  taken.add(candidate.toLocaleLowerCase());
  return candidate;
}
