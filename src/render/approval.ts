/**
 * An approval's subject as a person reads it (issue 35): the parts every surface shows (the command, each file's
 * diff, the tool's input), every invisible or direction-changing character made visible as a labelled mark, and how
 * much of it a surface with a size limit can carry. Pure; each platform puts the text in its own code block.
 */
import type { ApprovalSubject } from "../record/record.ts";

/** The approval question's id and its two fixed options, always first and in this order: a typed `2` is always Deny. */
export const APPROVAL_QUESTION_ID = "approval";
export const ALLOW = "Allow";
export const DENY = "Deny";
/** The button that opens the answer page when a chat cannot carry the whole subject. */
export const REVIEW_BUTTON_TEXT = "Review…";

/** Names for the invisible characters people meet most; any other is shown by its code point (⟨U+202E⟩). */
const MARK_NAMES: Record<number, string> = {
  0x09: "TAB",
  0x0d: "CR",
  0xa0: "NBSP",
  0xad: "SHY",
  0x200b: "ZWSP",
  0x200c: "ZWNJ",
  0x200d: "ZWJ",
  0x200e: "LRM",
  0x200f: "RLM",
  0x061c: "ALM",
  0x2028: "LS",
  0x2029: "PS",
  0x2060: "WJ",
  0xfeff: "BOM",
};

/**
 * Control characters (but line feed), format characters (bidi controls, zero-width), line and paragraph separators,
 * every space but the plain one, and the invisible fillers: what could make a command read as something else.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0]/gu;

/** The labelled mark for one invisible character: ⟨ZWSP⟩, ⟨LS⟩, ⟨U+202E⟩. */
export function invisibleMark(ch: string): string {
  const code = ch.codePointAt(0)!;
  return `⟨${MARK_NAMES[code] ?? `U+${code.toString(16).toUpperCase().padStart(4, "0")}`}⟩`;
}

/**
 * `text` with every invisible or direction-changing character replaced by its labelled mark. Line feeds stay (a
 * command or a diff keeps its lines), and so does the plain space; a tab becomes ⟨TAB⟩ followed by a space.
 */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (ch) => (ch === "\n" || ch === " " ? ch : ch === "\t" ? `${invisibleMark(ch)} ` : invisibleMark(ch)));
}

/** True when `text` holds a character `showInvisible` marks. */
export function hasInvisible(text: string): boolean {
  for (const match of text.matchAll(INVISIBLE)) if (match[0] !== "\n" && match[0] !== " ") return true;
  return false;
}

/** One part of the subject: a title line, and its text as written (marks are added when it is shown). */
export interface ApprovalSection {
  kind: "command" | "diff" | "input" | "text";
  title: string;
  text: string;
  /** A diff's file. */
  path?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A value as pretty JSON (two-space indent); a string as itself. */
export function inputText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

/**
 * The subject's parts, in the order every surface shows them: the command (an input's `command` string), the
 * directory it runs in, each file change (its diff), and the rest of the input as JSON. Where `changes` are given
 * they stand for the input's content (the asker builds them from all of it: a Write's content, an Edit's strings),
 * so only the input's other fields are shown beside them, and a string longer than a line is left to the diff.
 */
export function approvalSections(subject: ApprovalSubject): ApprovalSection[] {
  const sections: ApprovalSection[] = [];
  const input = subject.input;
  const command = isObject(input) && typeof input.command === "string" ? input.command : undefined;
  if (command !== undefined) sections.push({ kind: "command", title: "Command", text: command });
  if (subject.cwd) sections.push({ kind: "text", title: "In", text: subject.cwd });
  for (const change of subject.changes ?? []) {
    const where = change.movePath ? `${change.path} → ${change.movePath}` : change.path;
    sections.push({ kind: "diff", title: `${CHANGE_VERBS[change.kind]} ${where}`, text: change.diff, path: change.path });
  }
  const rest = restOfInput(input, command !== undefined, (subject.changes?.length ?? 0) > 0);
  if (!isObject(rest)) {
    if (rest !== undefined) sections.push({ kind: "input", title: "Input", text: inputText(rest) });
    return sections;
  }
  // A long or multi-line string (a Task's prompt, a description) reads as text of its own, not as one JSON line.
  const short: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (typeof value === "string" && (value.includes("\n") || value.length > LONG_STRING)) sections.push({ kind: "text", title: key, text: value });
    else short[key] = value;
  }
  if (Object.keys(short).length > 0) sections.push({ kind: "input", title: sections.length > 0 ? "Also" : "Input", text: inputText(short) });
  return sections;
}

/** A string field longer than this is shown as text of its own. */
const LONG_STRING = 120;

const CHANGE_VERBS = { add: "Add", update: "Change", delete: "Delete" } as const;

/** The input minus what the other sections show; undefined when nothing is left. */
function restOfInput(input: unknown, commandShown: boolean, changesShown: boolean): unknown {
  if (!isObject(input)) return input === undefined ? undefined : input;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (commandShown && key === "command") continue;
    // A file tool's content and strings are what the diffs show, line by line.
    if (changesShown && typeof value === "string" && (value.includes("\n") || value.length > 200 || CONTENT_KEYS.has(key))) continue;
    if (changesShown && key === "edits" && Array.isArray(value)) continue;
    rest[key] = value;
  }
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** The input fields of file tools whose text a diff shows (Claude Code's Write, Edit, MultiEdit, NotebookEdit). */
const CONTENT_KEYS = new Set(["content", "old_string", "new_string", "new_source"]);

/** A section as plain text: its title on a line, then its text with the invisible characters marked. */
export function sectionText(section: ApprovalSection): string {
  return `${section.title}:\n${showInvisible(section.text)}`;
}

/** What a surface shows of a subject: the text to put in its code block, and what was left out. */
export interface ApprovalView {
  /** The text to show (sections joined by a blank line), marks added; cut when `complete` is false. */
  text: string;
  complete: boolean;
  /** Characters of the subject not shown (in the sections cut or left out, except whole files). */
  missingChars: number;
  /** Files whose change is not shown at all. */
  missingFiles: number;
}

const SEPARATOR = "\n\n";

/**
 * The subject fitted to a surface: all of it when `fits(text)` says the whole text fits, else the longest prefix of
 * whole lines that fits (a section cut inside a line would hide the end of a command), with the rest counted.
 * `fits` is the surface's own test (its escaping and limit, the rest of the message included).
 */
export function fitApproval(subject: ApprovalSubject, fits: (text: string) => boolean): ApprovalView {
  const sections = approvalSections(subject);
  const whole = sections.map(sectionText).join(SEPARATOR);
  if (fits(whole)) return { text: whole, complete: true, missingChars: 0, missingFiles: 0 };
  const lines = whole.split("\n");
  // The longest prefix of whole lines that fits: fits only turns false as the text grows, so a binary search works.
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(lines.slice(0, mid).join("\n"))) lo = mid;
    else hi = mid - 1;
  }
  const shown = lines.slice(0, lo).join("\n").trimEnd();
  return { text: shown, complete: false, ...missing(sections, shown.length) };
}

/** What of `sections` lies past the first `shownLength` characters of their joined text. */
function missing(sections: ApprovalSection[], shownLength: number): { missingChars: number; missingFiles: number } {
  let at = 0;
  let missingChars = 0;
  let missingFiles = 0;
  for (const section of sections) {
    const text = sectionText(section);
    const start = at;
    at += text.length + SEPARATOR.length;
    if (start >= shownLength && section.kind === "diff") missingFiles++;
    else if (start + text.length > shownLength) missingChars += start + text.length - Math.max(start, shownLength);
  }
  return { missingChars, missingFiles };
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** "2,431 more characters and 3 more files are not shown here". */
export function missingNote(view: Pick<ApprovalView, "missingChars" | "missingFiles">): string {
  const parts = [
    ...(view.missingChars > 0 ? [count(view.missingChars, "more character", "more characters")] : []),
    ...(view.missingFiles > 0 ? [count(view.missingFiles, "more file", "more files")] : []),
  ];
  const verb = parts.length === 1 && (view.missingChars === 1 || (view.missingChars === 0 && view.missingFiles === 1)) ? "is" : "are";
  return `${parts.join(" and ") || "Some of it"} ${verb} not shown here.`;
}

/** Where a chat that cannot carry the whole subject sends the person: the answer page, or nowhere (Deny only). */
export const REVIEW_NOTE = "To allow it, review the whole request first: Review… opens it on a page that shows everything.";
export const NO_LINK_NOTE =
  "No answer link can reach this chat (the gateway has no GATEWAY_PUBLIC_URL), so it can only be denied here; the Control UI on the gateway's machine shows all of it.";
/** What a typed "allow" is answered with, where the chat could not show the whole subject. */
export const REVIEW_FIRST_REPLY = "Not allowed yet: this chat could not show the whole request. Review it first (Review…), and allow it there.";

/** The option labels that approve: Allow and every grant (options 3 and 4). Deny and own words never do. */
export function approvingLabels(subject: ApprovalSubject): string[] {
  return [ALLOW, ...(subject.grants ?? []).map((grant) => grant.label)];
}
