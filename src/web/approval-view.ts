/**
 * An approval's subject as the two web surfaces draw it (issue 35): text cut into plain runs and labelled marks (each
 * invisible or direction-changing character named, for the eye and for a screen reader), a diff cut into lines with
 * their sign in a column of its own, and what the edit box starts from and makes. Pure and shared: the answer page
 * writes it as HTML, the Control UI builds it as DOM (bundled through browser-shared.ts).
 */
import type { ApprovalSubject } from "../record/record.ts";
import { ALLOW, APPROVAL_QUESTION_ID, hasInvisible, inputText, invisibleMark } from "../render/approval.ts";

/** A piece of shown text: a plain run, or one invisible character as its mark (`⟨ZWSP⟩`) and its name in words. */
export type TextPiece = { text: string } | { mark: string; name: string };

/** Longer names for the marks people meet most; the mark's short name (and code point) says the rest. */
const LONG_NAMES: Record<number, string> = {
  0x09: "tab",
  0x0d: "carriage return",
  0xa0: "no-break space",
  0x200b: "zero-width space",
  0x200c: "zero-width non-joiner",
  0x200d: "zero-width joiner",
  0x200e: "left-to-right mark",
  0x200f: "right-to-left mark",
  0x202a: "left-to-right embedding",
  0x202b: "right-to-left embedding",
  0x202c: "pop directional formatting",
  0x202d: "left-to-right override",
  0x202e: "right-to-left override",
  0x2066: "left-to-right isolate",
  0x2067: "right-to-left isolate",
  0x2068: "first strong isolate",
  0x2069: "pop directional isolate",
  0x2028: "line separator",
  0x2029: "paragraph separator",
  0x2060: "word joiner",
  0xfeff: "byte order mark",
};

/** "invisible character: right-to-left override (U+202E)". */
export function markName(ch: string): string {
  const code = ch.codePointAt(0)!;
  const point = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  const name = LONG_NAMES[code] ?? invisibleMark(ch).slice(1, -1);
  return name === point ? `invisible character ${point}` : `invisible character: ${name} (${point})`;
}

/** `text` as plain runs and marks, in order; line feeds and plain spaces stay in the runs. */
export function textPieces(text: string): TextPiece[] {
  if (!hasInvisible(text)) return text ? [{ text }] : [];
  const pieces: TextPiece[] = [];
  let run = "";
  for (const ch of text) {
    if (ch !== "\n" && ch !== " " && hasInvisible(ch)) {
      if (run) pieces.push({ text: run });
      run = "";
      pieces.push({ mark: invisibleMark(ch), name: markName(ch) });
    } else run += ch;
  }
  if (run) pieces.push({ text: run });
  return pieces;
}

/** One line of a unified diff: its kind, the sign shown in the sign column, and the line without its sign. */
export interface DiffLine {
  kind: "add" | "remove" | "context" | "hunk" | "meta";
  sign: string;
  text: string;
}

/** The sign column's characters: a real minus sign reads better than a hyphen. */
const SIGNS = { add: "+", remove: "−", context: " ", hunk: "", meta: "" } as const;

/**
 * A unified diff, line by line. Before the first hunk (`@@`) the lines are the file headers (`---`, `+++`, `Index:`);
 * a diff without any hunk (a new file's content) is read by each line's first character alone.
 */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.replace(/\n$/u, "").split("\n");
  const hasHunks = lines.some((line) => line.startsWith("@@"));
  let inHunk = !hasHunks;
  return lines.map((line): DiffLine => {
    if (line.startsWith("@@")) {
      inHunk = true;
      return { kind: "hunk", sign: SIGNS.hunk, text: line };
    }
    if (!inHunk || line.startsWith("\\")) return { kind: "meta", sign: SIGNS.meta, text: line };
    const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "remove" : "context";
    const text = kind !== "context" || line.startsWith(" ") ? line.slice(1) : line;
    return { kind, sign: SIGNS[kind], text };
  });
}

/** Words for a screen reader before each line (the sign column is for the eye). */
export const DIFF_LINE_WORDS: Record<DiffLine["kind"], string> = { add: "added: ", remove: "removed: ", context: "", hunk: "", meta: "" };

/** "Claude Code asks to use Bash". */
export const approvalHeading = (subject: ApprovalSubject): string => `${subject.agent} asks to use ${subject.tool}`;

/** The edit box's text: the command, or the whole input as pretty JSON; undefined where nothing may be edited. */
export function editableText(subject: ApprovalSubject): string | undefined {
  if (subject.editable === "command") {
    const input = subject.input;
    return typeof input === "object" && input !== null && typeof (input as Record<string, unknown>).command === "string" ? String((input as Record<string, unknown>).command) : undefined;
  }
  if (subject.editable === "input") return inputText(subject.input);
  return undefined;
}

/** The edit box's label. */
export const editLabel = (subject: ApprovalSubject): string => (subject.editable === "command" ? "Edit the command before allowing it" : "Edit the input (JSON) before allowing it");

/** The button that allows the edited version. */
export const ALLOW_WITH_CHANGES = "Allow with changes";

/** What an edit box makes: nothing changed (a plain Allow), the edited input, or why it cannot be sent. */
export type EditOutcome = { kind: "unchanged" } | { kind: "edited"; input: unknown } | { kind: "invalid"; text: string };

/** A textarea's line breaks as the form posts them (CR LF) or the parser reads them (CR): all line feeds here. */
const lineFeeds = (text: string): string => text.replace(/\r\n?/gu, "\n");

/**
 * The edit box's text read against the subject: for `command`, the input with its command replaced; for `input`, the
 * parsed JSON object. Text that reads the same as the original (line breaks aside; for JSON, the same value) is no
 * change, so it is a plain Allow.
 */
export function readEdit(subject: ApprovalSubject, text: string): EditOutcome {
  const original = editableText(subject);
  if (original === undefined) return { kind: "unchanged" };
  const edited = lineFeeds(text);
  if (subject.editable === "command") {
    if (edited === lineFeeds(original)) return { kind: "unchanged" };
    if (!edited.trim()) return { kind: "invalid", text: "The command cannot be empty. Deny the request instead, or undo your change." };
    return { kind: "edited", input: { ...(subject.input as Record<string, unknown>), command: edited } };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(edited);
  } catch (error) {
    return { kind: "invalid", text: `The input is not valid JSON (${error instanceof Error ? error.message : String(error)}), so nothing was sent. Fix it, or undo your change.` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { kind: "invalid", text: "The input must be a JSON object ({ … }), so nothing was sent." };
  if (JSON.stringify(parsed) === JSON.stringify(subject.input)) return { kind: "unchanged" };
  return { kind: "edited", input: parsed };
}

/** The answer an Allow with changes sends, beside its `edit`. */
export const allowAnswers = (): Record<string, string[]> => ({ [APPROVAL_QUESTION_ID]: [ALLOW] });

const GRANT_WITH_EDIT = "You changed the request, and that option allows it as shown. Press “Allow with changes” to allow your version, or undo your change.";

/** What an approval's answer sends: the answers and the edit, or why nothing may be sent (shown at the edit box). */
export type ApprovalAnswer = { answers: Record<string, string[]>; edit?: { input: unknown } } | { problem: string };

/**
 * One rule for both surfaces (issue 35 §3): "Allow with changes" (`allowEdited`), or Allow chosen with the edit box
 * changed, answers Allow with the edited input; a box left as it was is a plain Allow. Invalid JSON (or an empty
 * command) is a problem, and nothing is sent; so is a changed box with a grant chosen (a grant allows what was
 * shown). Deny and own words leave the box aside. `text`: the box's text (undefined: never touched).
 */
export function approvalAnswer(subject: ApprovalSubject, answers: Record<string, string[]>, text: string | undefined, allowEdited: boolean): ApprovalAnswer {
  const outcome = text === undefined ? ({ kind: "unchanged" } as const) : readEdit(subject, text);
  const chosen = answers[APPROVAL_QUESTION_ID] ?? [];
  if (outcome.kind === "unchanged") return { answers: allowEdited ? allowAnswers() : answers };
  if (!allowEdited && !(chosen.length === 1 && chosen[0] === ALLOW)) {
    const grant = chosen.length === 1 && (subject.grants ?? []).some((g) => g.label === chosen[0]);
    return grant ? { problem: GRANT_WITH_EDIT } : { answers };
  }
  if (outcome.kind === "invalid") return { problem: outcome.text };
  return { answers: allowAnswers(), edit: { input: outcome.input } };
}

/** The gateway's refusal of an edit in the page's words (an issue on `edit`, or a message about it); else undefined. */
export function editRefusal(error: { code: string; message: string; issues?: ReadonlyArray<{ path?: unknown; message?: unknown }> }): string | undefined {
  if (error.code !== "QUESTION_INVALID_ANSWER" && error.code !== "INVALID_PARAMS") return undefined;
  const issue = (error.issues ?? []).find((i) => typeof i.path === "string" && (i.path === "edit" || i.path.startsWith("edit.")));
  const text = issue ? String(issue.message) : /^edit\b/u.test(error.message) ? error.message : undefined;
  if (text === undefined) return undefined;
  return `Your changes were not accepted (${text}). Nothing was recorded.`;
}
