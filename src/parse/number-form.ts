import { looseKey } from "../kernel/text.ts";

/** `N`, `#N`, `N)`, `option N` on a loose key (whose trailing `.` is already gone, so `N.` is covered). */
const NUMBER_FORM = /^(?:#\s?|option\s?#?)?([0-9]{1,9})\)?$/u;

/**
 * The number in a reply written as a number form (parser rule 6): `N`, `#N`, `N.`, `N)` or `option N`,
 * compared loosely (full-width digits, case, padding). Null when the text is no number form.
 * The range is not checked here; an out-of-range number is read as own words by the caller.
 */
export function parseNumberForm(text: string): number | null {
  return looseNumberForm(looseKey(text));
}

/** The same, for text that is already a loose key. */
export function looseNumberForm(key: string): number | null {
  const match = NUMBER_FORM.exec(key);
  return match?.[1] === undefined ? null : Number(match[1]);
}
