import type { AskUserQuestion } from "../contract/schema.ts";
import { looseKey, looseLabelKey } from "../kernel/text.ts";
import { looseNumberForm } from "./number-form.ts";

/** An option picked by a piece of reply text. */
export interface OptionMatch {
  index: number;
  label: string;
  via: "label" | "number";
}

export interface OptionMatcher {
  /** The option whose label loosely equals the text, with or without " (Recommended)" (rule 5); -1 if none. */
  labelIndex(text: string): number;
  /** The option labelled "Skip", loosely; -1 if none. */
  readonly skipIndex: number;
  /**
   * Reads one piece of reply text as an option (rules 4-6), or null for own words:
   * a loose label match; else `skip` or `/skip` picks an option labelled Skip; else an in-range number form.
   */
  match(text: string): OptionMatch | null;
}

/** The loose replies that mean skip (rule 4). */
const SKIP_KEYS: ReadonlySet<string> = new Set(["skip", "/skip"]);

/** True when the text is loosely `skip` or `/skip`. */
export function isSkipText(text: string): boolean {
  return SKIP_KEYS.has(looseKey(text));
}

/**
 * Matchers by their labels (a matcher depends on the labels alone): the gateway decodes a fresh record for every
 * reply, so question objects are new each time while their labels are not. Bounded, cleared when full.
 */
const matchersByLabels = new Map<string, OptionMatcher>();
const MATCHERS_BY_LABELS_SIZE = 1024;
let lastQuestion: AskUserQuestion | undefined;
let lastMatcher: OptionMatcher | undefined;

/** Precomputes a question's loose label keys once (per set of labels), for matching many pieces against it. */
export function createOptionMatcher(question: AskUserQuestion): OptionMatcher {
  if (question === lastQuestion && lastMatcher) return lastMatcher; // the same question again within one parse
  const { options } = question;
  let labels = options[0]?.label ?? "";
  for (let i = 1; i < options.length; i++) labels += `\u0000${options[i]!.label}`;
  let matcher = matchersByLabels.get(labels);
  if (!matcher) {
    if (matchersByLabels.size >= MATCHERS_BY_LABELS_SIZE) matchersByLabels.clear();
    matchersByLabels.set(labels, (matcher = buildOptionMatcher(question)));
  }
  lastQuestion = question;
  lastMatcher = matcher;
  return matcher;
}

function buildOptionMatcher(question: AskUserQuestion): OptionMatcher {
  const labels = question.options.map((option) => option.label);
  const keys = labels.map((label) => [looseKey(label), looseLabelKey(label)] as const);
  const indexOfKey = (key: string): number => (key === "" ? -1 : keys.findIndex(([full, bare]) => key === full || key === bare));
  const skipIndex = indexOfKey("skip");

  return {
    skipIndex,
    labelIndex: (text) => indexOfKey(looseKey(text)),
    match(text) {
      const key = looseKey(text);
      if (key === "") return null;
      let index = indexOfKey(key);
      if (index === -1 && SKIP_KEYS.has(key)) index = skipIndex;
      if (index !== -1) return { index, label: labels[index] ?? "", via: "label" };
      const n = looseNumberForm(key);
      if (n !== null && n >= 1 && n <= labels.length) return { index: n - 1, label: labels[n - 1] ?? "", via: "number" };
      return null;
    },
  };
}
