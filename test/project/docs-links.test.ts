/**
 * The documentation holds together (issue 36 §4): every relative link and `#anchor` in README.md and docs/**\/*.md
 * leads somewhere (the file exists; the anchor is a heading's GitHub slug in the target file), and every variable
 * in .env.example is named in docs/ in code (`NAME`, or a whole word of a code span such as `STORE=memory`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

const PAGES = [join(ROOT, "README.md"), ...markdownFiles(join(ROOT, "docs"))];
/** Every inline code span and fenced block line in docs/, where a variable counts as named. */
const DOCS_CODE = markdownFiles(join(ROOT, "docs")).flatMap((file) => {
  const text = readFileSync(file, "utf8");
  const fenced = [...text.matchAll(/^\s*```[^\n]*\n([\s\S]*?)^\s*```/gm)].map((m) => m[1]!);
  const inline = [...text.replace(/^\s*```[^\n]*\n[\s\S]*?^\s*```/gm, "").matchAll(/(`+)([^`]+?)\1/g)].map((m) => m[2]!);
  return [...fenced, ...inline];
});

/** The page's lines outside fenced code blocks, with inline code spans blanked (links inside them are not links). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      lines.push("");
      continue;
    }
    lines.push(fence === undefined ? line.replace(/(`+)[^`]*?\1/g, (code) => " ".repeat(code.length)) : "");
  }
  return lines;
}

/** GitHub's heading anchor: the text as rendered, lower-cased, without punctuation, spaces as hyphens; repeats get -1, -2, … */
function slugs(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    const heading = fence === undefined ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const rendered = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
      .replace(/<[^>]+>/g, "") // inline HTML
      .replace(/[*_`~]+(?=\S)|(?<=\S)[*_`~]+/g, (mark) => (mark.includes("_") && !/[*`~]/.test(mark) ? mark : "")); // emphasis, code
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  page: string;
  line: number;
  target: string;
}

function links(page: string): Link[] {
  const found: Link[] = [];
  proseLines(readFileSync(page, "utf8")).forEach((line, index) => {
    for (const match of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ page, line: index + 1, target: match[1]! });
    }
    for (const match of line.matchAll(/^\s*\[[^\]]+\]:\s+(\S+)/g)) found.push({ page, line: index + 1, target: match[1]! });
  });
  return found;
}

const ALL_LINKS = PAGES.flatMap(links);
const LOCAL = ALL_LINKS.filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link.target) && !link.target.startsWith("//"));
const where = (link: Link) => `${relative(ROOT, link.page)}:${link.line} → ${link.target}`;

describe("docs: links", () => {
  it("finds the pages and their links", () => {
    expect(PAGES.map((page) => relative(ROOT, page))).toEqual(
      expect.arrayContaining(["README.md", "docs/ARCHITECTURE.md", "docs/platforms/telegram.md", "docs/platforms/web.md"]),
    );
    expect(LOCAL.length).toBeGreaterThan(50);
    expect(LOCAL.some((link) => link.target.includes("#"))).toBe(true);
  });

  it("every relative link names a file that exists", () => {
    const broken = LOCAL.filter((link) => {
      const path = decodeURIComponent(link.target.split("#")[0]!);
      return path !== "" && !existsSync(resolve(dirname(link.page), path));
    });
    expect(broken.map(where)).toEqual([]);
  });

  it("every #anchor is a heading of the page it points into", () => {
    const broken = LOCAL.filter((link) => {
      const hash = link.target.indexOf("#");
      if (hash < 0) return false;
      const path = decodeURIComponent(link.target.slice(0, hash));
      const file = path === "" ? link.page : resolve(dirname(link.page), path);
      if (!file.endsWith(".md") || !existsSync(file)) return false; // a missing file is the test above's
      return !slugs(readFileSync(file, "utf8")).has(decodeURIComponent(link.target.slice(hash + 1)));
    });
    expect(broken.map(where)).toEqual([]);
  });

  it("slugs as GitHub makes them", () => {
    const s = slugs("# Claude Code → Telegram in ten minutes\n## The `ask` command\n## Logs\n## Logs\n```\n# not a heading\n```\n");
    expect([...s]).toEqual(["claude-code--telegram-in-ten-minutes", "the-ask-command", "logs", "logs-1"]);
  });
});

describe("docs: .env.example", () => {
  const variables = [
    ...new Set(
      readFileSync(join(ROOT, ".env.example"), "utf8")
        .split("\n")
        .map((line) => /^(?:#\s*)?([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
        .filter((name): name is string => name !== undefined),
    ),
  ];

  it("has variables", () => {
    expect(variables).toEqual(expect.arrayContaining(["GATEWAY_TOKEN", "TELEGRAM_BOT_TOKEN", "EMAIL_SMTP_URL"]));
  });

  it("every variable is documented in docs/ in code, as `NAME`", () => {
    const named = (name: string) => DOCS_CODE.some((code) => new RegExp(`(?<![A-Z0-9_])${name}(?![A-Z0-9_])`).test(code));
    expect(variables.filter((name) => !named(name))).toEqual([]);
  });
});
