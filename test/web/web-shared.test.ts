/**
 * The Control UI runs the server's own code, bundled by scripts/build.mjs into src/web/static/shared.js (rebuilt by
 * test/global-setup.ts whenever a source changed): its summary is the chat summary for every fixture, grapheme
 * cutting included, the bundle stays small and free of server-only code, and no other file of the page redoes what
 * the bundle does.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backoffDelay } from "../../src/kernel/backoff.ts";
import { GatewayError, type ErrorBody } from "../../src/kernel/errors.ts";
import type { QuestionRecord } from "../../src/record/record.ts";
import { recordedText } from "../../src/render/recorded-text.ts";
import { renderSummary, summarizeRecord, SUMMARY_ICONS } from "../../src/render/summary.ts";
import { SURFACE_REGISTRY } from "../../src/platforms/surfaces.ts";
import { STATIC_DIR } from "../../src/web/static-assets.ts";
import * as bundle from "../../src/web/static/shared.js";
import { SUMMARY_CASES } from "../fixtures/summary-cases.ts";

const BUNDLE = "shared.js";
/** 16 KB, and issue 35's approval view (marks, diff lines, the edit rule: about 9 KB). */
const BUNDLE_MAX_BYTES = 26 * 1024;
const bundleText = readFileSync(join(STATIC_DIR, BUNDLE), "utf8");
const pageModules = readdirSync(STATIC_DIR).filter((name) => name.endsWith(".js") && name !== BUNDLE);

function fixture(name: string): QuestionRecord {
  const found = SUMMARY_CASES.find(([caseName]) => caseName === name);
  if (!found) throw new Error(`no summary fixture named ${name}`);
  return found[1];
}

describe("the Control UI's summary is the chat summary", () => {
  it.each(SUMMARY_CASES)("%s", (_name, record, text) => {
    const summary = bundle.summarizeRecord(record);
    expect(summary).toEqual(summarizeRecord(record));
    expect(summary?.icon).toBe(text.slice(0, summary!.icon.length));
    expect(renderSummary(record)).toBe(text);
  });

  it.each([
    ["answered in Telegram by Ada", "Answered in Telegram by Ada"],
    ["answered, no by", "Answered"],
    ["skipped on the web", "Skipped on the web"],
    ["expired", "No answer (expired)"],
    ["cancelled via the CLI", "Cancelled via the CLI"],
    ["aborted", "Cancelled (the agent stopped)"],
    ["delivery failed with a detail", "Not delivered: no bot connected for slack"],
  ])("%s: the timeline says “%s”", (name, text) => {
    expect(bundle.summarizeRecord(fixture(name))?.text).toBe(text);
  });

  it("answers per question, for the timeline to show under each", () => {
    expect(bundle.summarizeRecord(fixture("several questions, multi values comma-joined"))).toEqual({
      kind: "answered",
      icon: SUMMARY_ICONS.answered,
      text: "Answered in Slack by Ada",
      by: "in Slack by Ada",
      answers: [
        { header: "Deployment t", question: "Where should this deploy?", text: "Production" },
        { header: "Regions", question: "Which regions?", text: "eu, ap, “mars”" },
      ],
    });
  });

  it("has no summary for a pending record", () => {
    expect(bundle.summarizeRecord({ ...fixture("answered, no by"), status: "pending" })).toBeUndefined();
  });
});

describe("the bundle", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is built from the sources and says so", () => {
    expect(bundleText.split("\n", 1)[0]).toMatch(/^\/\/ Generated from src\/web\/browser-shared\.ts .* by scripts\/build\.mjs: do not edit\.$/);
    expect(bundleText).toMatch(/^\/\/ src\/render\/summary\.ts$/m);
    expect(Object.keys(bundle).sort()).toEqual([
      "ALLOW_WITH_CHANGES",
      "DIFF_LINE_WORDS",
      "GatewayError",
      "REMINDER_ICON",
      "SUMMARY_ICONS",
      "acceptsLateAnswer",
      "approvalAnswer",
      "approvalHeading",
      "approvalSections",
      "backoffDelay",
      "createPendingCalls",
      "diffLines",
      "editLabel",
      "editRefusal",
      "editableText",
      "inputText",
      "isStaleCopy",
      "listAll",
      "listPages",
      "parseFrame",
      "recordHistory",
      "recordedText",
      "reminderMarks",
      "summarizeRecord",
      "textPieces",
    ]);
  });

  it.each([0, 0.5, 0.999])("backs off as the Node client does (Math.random() = %s)", (random) => {
    vi.spyOn(Math, "random").mockReturnValue(random);
    for (const attempt of [0, 1, 3, 10, 30]) expect(bundle.backoffDelay(attempt)).toBe(backoffDelay(attempt));
  });

  it("says how a reply was read in the words the chat bots use", () => {
    const questions = [
      { id: "env", header: "Env", question: "Which?", multiSelect: false, options: [{ label: "Staging" }, { label: "Production" }] },
      { id: "note", header: "Note", question: "Anything else?", multiSelect: false, options: [{ label: "No" }, { label: "Yes" }] },
    ];
    const readAs = { env: [{ value: "Production", via: "number" as const }], note: [{ value: "ship it 🚀 after lunch", via: "text" as const }] };
    expect(bundle.recordedText(questions, readAs, "Read as")).toBe(recordedText(questions, readAs, "Read as"));
  });

  it("keeps a resolved record against a late pending copy, as the bots' cache does", () => {
    expect(bundle.isStaleCopy({ status: "answered" }, { status: "pending" })).toBe(true);
    expect(bundle.isStaleCopy({ status: "pending" }, { status: "answered" })).toBe(false);
    expect(bundle.isStaleCopy(undefined, { status: "pending" })).toBe(false);
  });

  it("settles requests by response id, and fails them all when the link drops", async () => {
    const calls = bundle.createPendingCalls();
    const sent: string[] = [];
    const first = calls.request("question.get", { id: "q1" }, 5_000, (text) => sent.push(text));
    const second = calls.request("question.get", { id: "q2" }, 5_000, (text) => sent.push(text));
    const [a, b] = sent.map((text) => JSON.parse(text) as { id: number });
    expect(calls.settle(bundle.parseFrame(JSON.stringify({ type: "res", id: a!.id, ok: true, payload: { id: "q1" } }))!)).toBe(true);
    await expect(first).resolves.toEqual({ id: "q1" });
    expect(calls.settle({ type: "event", event: "question.updated" })).toBe(false);
    calls.failAll(new bundle.GatewayError("DISCONNECTED", "the link dropped"));
    await expect(second).rejects.toMatchObject({ code: "DISCONNECTED" });
    expect(b!.id).not.toBe(a!.id);
    expect(bundle.parseFrame("not json")).toBeUndefined();
  });

  it("fails with the protocol's GatewayError", () => {
    const body: ErrorBody = { code: "QUESTION_INVALID_ANSWER", message: "answers.a: needs at least one value", issues: [{ path: "answers.a", message: "needs at least one value" }] };
    const error = bundle.GatewayError.from(body);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "GatewayError", code: body.code, message: body.message, issues: body.issues });
    expect(error.toBody()).toEqual(GatewayError.from(body).toBody());
  });

  it(`is a small, plain module (under ${BUNDLE_MAX_BYTES / 1024} KB) of src/ alone: no zod, no ws, nothing of Node`, () => {
    expect(Buffer.byteLength(bundleText)).toBeLessThan(BUNDLE_MAX_BYTES);
    // esbuild heads each module it bundles with its path.
    const modules = [...bundleText.matchAll(/^\/\/ (\S+\.[cm]?[jt]s)$/gm)].map((m) => m[1]!);
    expect(modules).toContain("src/render/summary.ts");
    expect(modules.filter((path) => !path.startsWith("src/") || path.includes("node_modules"))).toEqual([]);
    expect(bundleText).not.toMatch(/node:|\brequire\(|\bprocess\.|\bBuffer\b|import\s*\(|^import /m);
  });
});

describe("no file of the page redoes what src/ does", () => {
  /** The bundle's functions and classes: esbuild writes them as `function name(` and `var Name = class`. */
  const shared = [...bundleText.matchAll(/^(?:function (\w+)|var (\w+) = class\b)/gm)].map((m) => (m[1] ?? m[2])!);

  it("finds the bundle's functions", () => {
    expect(shared).toEqual(expect.arrayContaining(["graphemes", "ellipsize", "whereAnswered", "summarizeRecord", "backoffDelay", "GatewayError"]));
  });

  it.each(pageModules)("%s defines none of the bundle's names and spells out no surface", (name) => {
    const source = readFileSync(join(STATIC_DIR, name), "utf8");
    const defined = [...source.matchAll(/\b(?:function|class) (\w+)|\b(?:const|let|var) (\w+) = (?:async )?(?:\([^)]*\)|\w+) =>/g)].map((m) => (m[1] ?? m[2])!);
    expect(defined.filter((n) => shared.includes(n))).toEqual([]);
    expect(Object.values(SURFACE_REGISTRY).filter(({ where }) => source.includes(where))).toEqual([]);
  });
});
