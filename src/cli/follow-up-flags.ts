import type { EscalationStep, Target } from "../record/record.ts";
import { parseTarget } from "../record/targets.ts";
import { EXAMPLE_TARGETS } from "../platforms/descriptors.ts";
import { UsageError } from "./args.ts";

/**
 * `ask`'s flags for when nobody answers (issue 20): `--remind SECONDS` (repeatable; `--remind none` turns reminders
 * off), `--escalate SECONDS=TARGET[,TARGET…]` (repeatable) and `--late-answer-seconds N`. Each returns undefined when
 * its flag was not given, so the gateway's defaults apply.
 */

const WHOLE_SECONDS = /^[0-9]+$/;

function seconds(flag: string, text: string, min: number): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!WHOLE_SECONDS.test(trimmed) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${flag}: "${text}" is not a whole number of seconds${min > 0 ? ` (at least ${min})` : ""}`);
  }
  return value;
}

/** `--remind 600 --remind 120` → [600, 120]; `--remind none` → [] (alone: with offsets too it is refused). */
export function parseRemindFlags(values: readonly string[] | undefined): number[] | undefined {
  if (!values?.length) return undefined;
  if (values.some((v) => v.trim().toLowerCase() === "none")) {
    if (values.length > 1) throw new UsageError(`--remind none turns reminders off; it cannot go with other --remind values`);
    return [];
  }
  return values.map((v) => seconds("--remind", v, 1));
}

/** `--escalate 600=SURFACE:CHAT,SURFACE:CHAT` → one step: after 600 s, those targets. Steps keep their order. */
export function parseEscalateFlags(values: readonly string[] | undefined): EscalationStep[] | undefined {
  if (!values?.length) return undefined;
  return values.map((value) => {
    const cut = value.indexOf("=");
    if (cut < 0) throw new UsageError(`--escalate: "${value}" must be SECONDS=TARGET[,TARGET...], e.g. 600=${EXAMPLE_TARGETS[0]}`);
    const afterSeconds = seconds("--escalate", value.slice(0, cut), 1);
    const list = value.slice(cut + 1).split(",").map((t) => t.trim()).filter(Boolean);
    if (list.length === 0) throw new UsageError(`--escalate: "${value}" names no target after "="`);
    const targets: Target[] = list.map((text) => {
      const parsed = parseTarget(text);
      if (!parsed.ok) throw new UsageError(`--escalate ${parsed.message}`);
      return parsed.target;
    });
    return { afterSeconds, targets };
  });
}

/** `--late-answer-seconds 3600`; 0 turns late answers off. */
export function parseLateAnswerSeconds(value: string | undefined): number | undefined {
  return value === undefined ? undefined : seconds("--late-answer-seconds", value, 0);
}
