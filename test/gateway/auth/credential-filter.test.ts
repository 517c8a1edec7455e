/**
 * The credential filter (issue #17 §3), both directions: every secret shape is refused, also split by whitespace, and
 * so is any answer holding one of the deployment's own secrets; no ordinary answer is (the corpus in
 * test/fixtures/credentials/ordinary-answers.json, and random sentences). The parser fixtures
 * (test/parse/parse-fixtures.test.ts) must keep their outcomes too. The gateway-level attacks are in
 * test/system/security-credentials.test.ts.
 */
import { cpuMsSince } from "../../helpers/cpu-time.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AskUserQuestion } from "../../../src/contract/schema.ts";
import { GatewayError } from "../../../src/kernel/errors.ts";
import { validateAnswers } from "../../../src/gateway/service/validate-answers.ts";
import { createKnownSecretMatcher, KNOWN_SECRET_MIN_LENGTH, looksLikeCredential, parseReply } from "../../../src/parse/index.ts";

// ------------------------------------------------------------------ secrets, made up but of the real shapes

/** A seeded generator, so that every run tests the same made-up secrets (and no scanner mistakes them for real ones). */
function seeded(seed: number) {
  let state = seed >>> 0;
  // mulberry32
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
}
const pick = seeded(17);
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM = `${UPPER}abcdefghijklmnopqrstuvwxyz0123456789`;
const B64URL = `${ALNUM}_-`;
const HEX = "0123456789abcdef";
const BASE32 = `${UPPER}234567`;

/** A Discord bot token: the bot id in base64, a timestamp, an HMAC (27 characters in old tokens, 38 in new ones). */
const discordToken = (id: string, hmacLength: number) => `${Buffer.from(id).toString("base64url")}.${pick(B64URL, 6)}.${pick(B64URL, hmacLength)}`;
/** Cuts a value into pieces of `size`, joined by `gap`. */
const split = (value: string, size: number, gap = " ") => value.match(new RegExp(`.{1,${size}}`, "gsu"))!.join(gap);

/** What one deployment is configured with: the secrets of issue #17 §3 that went through. */
const DEPLOYMENT = {
  gatewayToken: pick(HEX, 48),
  slackSigningSecret: pick(HEX, 32),
  discordBotToken: discordToken("1098765432109876543", 38),
  telegramBotToken: `7${pick("0123456789", 9)}:AA${pick(B64URL, 33)}`,
  slackBotToken: `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 13)}-${pick(ALNUM, 24)}`,
  slackAppToken: `xapp-1-A${pick(UPPER + "0123456789", 10)}-${pick("0123456789", 13)}-${pick(HEX, 64)}`,
  telegramWebhookSecret: pick(B64URL, 40),
};
const SECRETS = Object.values(DEPLOYMENT);

const sk = `sk-proj-${pick(ALNUM, 48)}`;
const jwt = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.${pick(B64URL, 43)}`;
const asia = `ASIA${pick(BASE32, 15)}7`;
const slackWebhook = `https://hooks.slack.com/services/T${pick(UPPER + "0123456789", 10)}/B${pick(UPPER + "0123456789", 10)}/${pick(ALNUM, 24)}`;

// ------------------------------------------------------------------ the corpus of ordinary answers

const corpus = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "fixtures", "credentials", "ordinary-answers.json"), "utf8")) as Record<string, unknown>;
const ORDINARY: Array<[string, string]> = Object.entries(corpus)
  .filter((entry): entry is [string, string[]] => Array.isArray(entry[1]))
  .flatMap(([kind, answers]) => answers.map((answer): [string, string] => [kind, answer]));

const free: AskUserQuestion = {
  id: "notes",
  header: "Notes",
  question: "Anything else we should know?",
  options: [{ label: "Nothing" }, { label: "Later" }],
  multiSelect: false,
};
const second: AskUserQuestion = { ...free, id: "more", header: "More", question: "And for the release?" };

describe("looksLikeCredential: the shapes issue #17 §3 found missing", () => {
  it.each<[string, string]>([
    ["a JWT with a space after each dot", jwt.replaceAll(".", ". ")],
    ["a JWT with a newline after each dot", jwt.replaceAll(".", ".\n")],
    ["a JWT cut in the middle of its header", `${jwt.slice(0, 14)} ${jwt.slice(14)}`],
    ["an ASIA session key id", asia],
    ["an ASIA key id in a sentence", `the id is ${asia}, region ap-southeast-1`],
    ["a Slack webhook URL", slackWebhook],
    ["a Slack webhook URL in a sentence", `post to ${slackWebhook} when done`],
    ["a Slack workflow webhook URL", `https://hooks.slack.com/workflows/T${pick(UPPER, 9)}/A${pick(UPPER, 10)}/${pick("0123456789", 18)}/${pick(ALNUM, 24)}`],
    ["sk-proj- split by spaces", split(sk, 8)],
    ["sk-proj- split by spaces right after the prefix", `sk-proj- ${split(sk.slice(8), 6)}`],
    ["sk-proj- split by newlines", split(sk, 12, "\n")],
    ["sk-proj- split by tabs", split(sk, 10, "\t")],
    ["sk-proj- with zero-width spaces", split(sk, 5, "\u200B")],
    ["sk-proj- split after a word ending in a digit", `token1 ${split(sk, 8)}`],
    ["sk-proj- split, after key=", `OPENAI_API_KEY= ${split(sk, 8)}`],
  ])("%s", (_name, text) => {
    expect(looksLikeCredential(text)).toBe(true);
  });
});

describe("looksLikeCredential: more shapes, also split by whitespace", () => {
  const ghp = `ghp_${pick(ALNUM, 36)}`;
  it.each<[string, string]>([
    ["a Discord bot token", DEPLOYMENT.discordBotToken],
    ["an old Discord bot token (27-character HMAC)", discordToken("123456789012345678", 27)],
    ["a Discord bot token of a 20-digit id", discordToken("98765432109876543210", 38)],
    ["a Discord webhook URL", `https://discord.com/api/webhooks/123456789012345678/${pick(B64URL, 68)}`],
    ["a Slack app-level token", DEPLOYMENT.slackAppToken],
    ["a Slack rotating token (xoxe-)", `xoxe-1-${pick(ALNUM, 40)}`],
    ["a Telegram bot token in a Bot API URL", `https://api.telegram.org/bot${DEPLOYMENT.telegramBotToken}/getMe`],
    ["a Google API key", `AIza${pick(B64URL, 35)}`],
    ["a Stripe secret key", `${"sk"}_live_${pick(ALNUM, 24)}`],
    ["a Stripe restricted key", `${"rk"}_test_${pick(ALNUM, 24)}`],
    ["a GitLab token", `glpat-${pick(B64URL, 20)}`],
    ["an npm token", `npm_${pick(ALNUM, 36)}`],
    ["ghp_ split by spaces", split(ghp, 6)],
    ["github_pat_ split by spaces", split(`github_pat_11${pick(ALNUM, 20)}_${pick(ALNUM, 59)}`, 10)],
    ["xoxb- split by spaces", split(DEPLOYMENT.slackBotToken, 9)],
    ["xapp- split by spaces", split(DEPLOYMENT.slackAppToken, 16)],
    ["a Telegram bot token split after the colon", DEPLOYMENT.telegramBotToken.replace(":", ": ")],
    ["a Telegram bot token split in pieces", split(DEPLOYMENT.telegramBotToken, 7)],
    ["a Discord bot token split in pieces", split(DEPLOYMENT.discordBotToken, 9)],
    ["a Slack webhook URL split by a space", `${slackWebhook.slice(0, 40)} ${slackWebhook.slice(40)}`],
  ])("%s", (_name, text) => {
    expect(looksLikeCredential(text)).toBe(true);
  });
});

describe("looksLikeCredential: near misses that are not credentials", () => {
  it.each<[string, string]>([
    ["sk-learn in a sentence with capitals and digits", "use sk-learn and PyTorch 2 for training"],
    ["sk-learn followed by commit hashes", "sk-learn 4f3e2a1 da39a3e Q3"],
    ["sk-learn, followed by ids", "sk-learn, 4f3e2a1 da39a3e Q3 v2"],
    ["a time followed by words (no Telegram token)", "at 12:30 we deploy the new build to prod 2024 55 66"],
    ["capitalised words", "Deploy Version 2 To Production Tonight Please"],
    ["ASIA in upper-case text", "ASIA PACIFIC Q3 REVENUE"],
    ["an upper-case identifier starting with ASIA", "ASIAPACIFICSALESTEAM2024"],
    ["ASIA_ with an underscore", "ASIA_PACIFIC_SALES_TEAM"],
    ["a JWT header alone", "eyJhbGciOiJIUzI1NiJ9"],
    ["eyJ in words", "eyJ foo. eyJ bar."],
    ["a Discord user id in base64, without the rest", "MTA5ODc2NTQzMjEwOTg3NjU0Mw"],
    ["the Slack hooks host alone", "https://hooks.slack.com/services"],
    ["the prefix of Stripe keys", "sk_live_ is the prefix of Stripe keys"],
    ["a PascalCase identifier with digits", "ThisIsAVeryLongPascalCaseIdentifierName2024"],
    ["an environment line", "export NODE_OPTIONS=--max-old-space-size=4096"],
    ["a Google Sheets link (the id is in the path)", "https://docs.google.com/spreadsheets/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit#gid=0"],
    ["a Notion link", "https://www.notion.so/acme/Launch-plan-2c4f6a8b0d1e3f5a7b9c1d3e5f7a9b1c"],
    ["a 48-character hex token (the shapes cannot tell it from a hash)", DEPLOYMENT.gatewayToken],
  ])("%s", (_name, text) => {
    expect(looksLikeCredential(text)).toBe(false);
  });

  it("still refuses a key in a URL's query or user info", () => {
    expect(looksLikeCredential(`https://api.example.com/v1/items?api_key=${pick(ALNUM, 40)}`)).toBe(true);
    expect(looksLikeCredential(`https://deploy:${pick(ALNUM, 36)}@git.example.com/acme/api.git`)).toBe(true);
    expect(looksLikeCredential(`https://app.example.com/callback#access_token=${pick(ALNUM, 40)}`)).toBe(true);
  });
});

describe("ordinary answers are never refused", () => {
  it("the corpus has at least 150 answers", () => {
    expect(ORDINARY.length).toBeGreaterThanOrEqual(150);
  });

  it.each(ORDINARY)("%s: %s", (_kind, answer) => {
    expect(looksLikeCredential(answer)).toBe(false);
    expect(createKnownSecretMatcher(SECRETS)(answer)).toBe(false);
    expect(parseReply([free], answer)).not.toMatchObject({ reason: "credential" });
    expect(validateAnswers([free], { notes: answer }, createKnownSecretMatcher(SECRETS))).toBeTypeOf("object");
  });

  it("nor are two of them as a two-question reply", () => {
    for (let i = 0; i + 1 < ORDINARY.length; i++) {
      const reply = `${ORDINARY[i]![1].replaceAll("\n", " ")}\n${ORDINARY[i + 1]![1].replaceAll("\n", " ")}`;
      expect(parseReply([free, second], reply), reply).not.toMatchObject({ reason: "credential" });
    }
  });

  it("nor any sentence made of ordinary words, numbers, hashes, ids and links", () => {
    const words = ORDINARY.flatMap(([, answer]) => answer.split(/\s+/u)).filter(Boolean);
    const extra = ["sk-learn", "ASIA", "PACIFIC", "Q3", "12:30", "eyJ", "MTA", "4f3e2a1", "da39a3e", "v2.4.0", "2024", "AKIA", "xoxb", "ghp"];
    const sentence = fc.array(fc.constantFrom(...words, ...extra), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(sentence, fc.constantFrom(" ", "\n", "  ", " \t"), (pieces, gap) => {
        expect(looksLikeCredential(pieces.join(gap))).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("split keys are refused wherever they are cut", () => {
  it("random keys of each prefixed shape, cut at random places by whitespace", () => {
    const body = (n: number) => fc.string({ unit: fc.constantFrom(...ALNUM), minLength: n, maxLength: n + 20 }).filter((b) => /[A-Z]/u.test(b) && /[a-z]/u.test(b) && /[0-9]/u.test(b));
    const key = fc.oneof(
      body(40).map((b) => `sk-proj-${b}`),
      body(36).map((b) => `ghp_${b}`),
      body(24).map((b) => `xoxb-123456789012-1234567890123-${b}`),
    );
    // Chunks of 6 or more: a chunk of random letters alone may read as a word (then the key is cut where it stands).
    const cuts = fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(key, cuts, fc.constantFrom(" ", "\n", "\u200B", " \t "), (value, sizes, gap) => {
        let at = 0;
        const pieces: string[] = [];
        for (let i = 0; at < value.length; i++) {
          const size = 6 + (sizes[i % sizes.length] ?? 0);
          pieces.push(value.slice(at, at + size));
          at += size;
        }
        // Pieces that happen to be ordinary words end the joined run; only keys whose first 20 body characters are
        // joined are expected to be found.
        fc.pre(pieces.slice(0, 5).every((p) => !/^[A-Za-z][a-z]+$/u.test(p)));
        expect(looksLikeCredential(`my key: ${pieces.join(gap)} thanks`)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("stays fast on hostile whitespace-separated input", () => {
    for (const reply of ["sk- ".repeat(2_500), "eyJ ".repeat(2_500) + ". eyJ", "ask- ".repeat(2_000), "Ab1 ".repeat(2_500), `${"1".repeat(12)}: `.repeat(700), "a\u200B".repeat(5_000)]) {
      const started = process.cpuUsage();
      looksLikeCredential(reply);
      parseReply([free, second], reply);
      expect(cpuMsSince(started)).toBeLessThan(250);
    }
  });
});

describe("the deployment's own secrets", () => {
  const holds = createKnownSecretMatcher(SECRETS);

  it.each(Object.entries(DEPLOYMENT))("%s: refused as is, in a sentence, split and glued with separators", (_name, secret) => {
    expect(holds(secret)).toBe(true);
    expect(holds(`here it is: ${secret} — thanks!`)).toBe(true);
    expect(holds(split(secret, 8))).toBe(true);
    expect(holds(split(secret, 5, "\n"))).toBe(true);
    expect(holds(split(secret, 4, "\u200B"))).toBe(true);
    expect(holds(split(secret, 6, "-"))).toBe(true);
    expect(holds(split(secret, 6, ". "))).toBe(true);
  });

  it("matches hex secrets in either case, and every other secret only in its own case", () => {
    expect(holds(DEPLOYMENT.gatewayToken.toUpperCase())).toBe(true);
    expect(holds(DEPLOYMENT.slackSigningSecret.toUpperCase())).toBe(true);
    const swapped = [...DEPLOYMENT.telegramWebhookSecret].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
    expect(holds(swapped)).toBe(false);
  });

  it("ignores part of a secret, and secrets shorter than the minimum, empty or unset", () => {
    expect(holds(DEPLOYMENT.gatewayToken.slice(0, 40))).toBe(false);
    const short = "x".repeat(KNOWN_SECRET_MIN_LENGTH - 1);
    const none = createKnownSecretMatcher([short, "", "   ", undefined]);
    expect(none(`${short} and more`)).toBe(false);
    expect(none("anything at all")).toBe(false);
    expect(createKnownSecretMatcher(["a-b-c-d-e-f-g"])("a-b-c-d-e-f-g")).toBe(true);
  });

  it("is false for non-strings and never throws", () => {
    expect(holds(undefined as unknown as string)).toBe(false);
    expect(holds({} as unknown as string)).toBe(false);
  });

  it("refuses a resolve answer holding one with CREDENTIAL_REFUSED, without quoting it", () => {
    for (const secret of SECRETS) {
      let caught: unknown;
      try {
        validateAnswers([free, second], { notes: `see ${split(secret, 10)}`, more: "Later" }, holds);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      const error = caught as GatewayError;
      expect(error.code).toBe("CREDENTIAL_REFUSED");
      expect(JSON.stringify({ message: error.message, issues: error.issues })).not.toContain(secret.slice(0, 12));
    }
  });

  it("leaves an answer equal to an option label alone (the agent wrote the label)", () => {
    const labelled: AskUserQuestion = { ...free, options: [{ label: DEPLOYMENT.gatewayToken }, { label: "Later" }] };
    expect(validateAnswers([labelled], { notes: DEPLOYMENT.gatewayToken }, holds)).toEqual({ notes: [DEPLOYMENT.gatewayToken] });
  });
});

// ------------------------------------------------------------------ issue #24 item 7: separators, invisible and fullwidth forms

/** Characters nobody sees: format characters (Cf) and other default-ignorable code points (U+034F is Mn, U+3164 Lo). */
const INVISIBLE: Array<[string, string]> = [
  ["U+200B zero-width space", "\u200B"],
  ["U+200C zero-width non-joiner", "\u200C"],
  ["U+200D zero-width joiner", "\u200D"],
  ["U+200E left-to-right mark", "\u200E"],
  ["U+202E right-to-left override", "\u202E"],
  ["U+2060 word joiner", "\u2060"],
  ["U+2063 invisible separator", "\u2063"],
  ["U+FEFF byte order mark", "\uFEFF"],
  ["U+00AD soft hyphen", "\u00AD"],
  ["U+034F combining grapheme joiner", "\u034F"],
  ["U+FE0F variation selector", "\uFE0F"],
  ["U+3164 Hangul filler", "\u3164"],
  ["U+E0020 tag space", "\u{E0020}"],
];
/** The fullwidth form of every printable ASCII character (what an IME, or an attacker, types). */
const fullwidth = (text: string) => text.replace(/[!-~]/gu, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
/** The four key shapes the review found passing when split by one space, each a made-up value. */
const SPLIT_BY_ONE_SPACE: Array<[string, string]> = [
  ["a Stripe secret key", `${"sk"}_live_${pick(ALNUM, 24)}`],
  ["a Stripe restricted key of the newer length", `${"rk"}_live_${pick(ALNUM, 99)}`],
  ["a GitLab token", `glpat-${pick(B64URL, 20)}`],
  ["an npm token", `npm_${pick(ALNUM, 36)}`],
  ["a Google API key", `AIza${pick(B64URL, 35)}`],
];

describe("the deployment's own secrets, with anything inserted between their pieces (issue #24)", () => {
  const holds = createKnownSecretMatcher(SECRETS);
  const gaps: Array<[string, string]> = [["+", "+"], ["~", "~"], ["*", "*"], ["=", "="], ["#", "#"], ["( )", ") ("], ...INVISIBLE];

  it.each(Object.entries(DEPLOYMENT))("%s: refused with each separator and each invisible character between its chunks", (_name, secret) => {
    for (const [what, gap] of gaps) {
      expect(holds(split(secret, 6, gap)), what).toBe(true);
      expect(holds(`use ${split(secret, 4, gap)} for it`), what).toBe(true);
    }
  });

  it.each(Object.entries(DEPLOYMENT))("%s: refused in fullwidth forms, and with a combining mark on each chunk", (_name, secret) => {
    expect(holds(fullwidth(secret))).toBe(true);
    expect(holds(`here: ${fullwidth(split(secret, 8, " "))}`)).toBe(true);
    expect(holds(split(secret, 5, "\u0301"))).toBe(true);
  });

  it("still matches other secrets only in their own case, and not part of one", () => {
    const swapped = [...DEPLOYMENT.telegramWebhookSecret].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
    expect(holds(fullwidth(swapped))).toBe(false);
    expect(holds(split(DEPLOYMENT.gatewayToken.slice(0, 40), 4, "\u2063"))).toBe(false);
  });
});

describe("looksLikeCredential: invisible characters and fullwidth forms (issue #24)", () => {
  const shapes: Array<[string, string]> = [
    ["an sk-proj- key", sk],
    ["a JWT", jwt],
    ["an ASIA session key id", asia],
    ["an AWS access key id", `AKIA${pick(UPPER + "0123456789", 16)}`],
    ["a Discord bot token", DEPLOYMENT.discordBotToken],
    ["a Telegram bot token", DEPLOYMENT.telegramBotToken],
    ...SPLIT_BY_ONE_SPACE,
  ];

  it.each(shapes)("%s: refused with each invisible character between its chunks", (_name, key) => {
    for (const [what, gap] of INVISIBLE) expect(looksLikeCredential(`the key: ${split(key, 5, gap)}`), what).toBe(true);
  });

  it.each(shapes)("%s: refused in fullwidth forms", (_name, key) => {
    expect(looksLikeCredential(fullwidth(key))).toBe(true);
    expect(looksLikeCredential(`key ${fullwidth(key)} ok`)).toBe(true);
  });

  it.each(SPLIT_BY_ONE_SPACE)("%s: refused when split by one space anywhere", (_name, key) => {
    for (let at = 1; at < key.length; at++) {
      const text = `${key.slice(0, at)} ${key.slice(at)}`;
      expect(looksLikeCredential(text), text).toBe(true);
      expect(looksLikeCredential(`my key is ${text} thanks`), text).toBe(true);
    }
  });

  it("but not the ordinary answers in fullwidth forms, nor with a zero-width joiner in their emoji", () => {
    for (const [, answer] of ORDINARY) {
      expect(looksLikeCredential(fullwidth(answer)), answer).toBe(false);
      expect(looksLikeCredential(answer.replaceAll(" ", "\u3000")), answer).toBe(false);
    }
    expect(looksLikeCredential("Ship it 👩‍💻👨‍👩‍👧 ✌️ in a family of ascii 🏳️‍🌈 today")).toBe(false);
    expect(looksLikeCredential("npm install then npm_config_cache and glp at the end, sk is fine")).toBe(false);
    // A word and a dash-led piece, or a bare prefix before a hash or a UUID: what fuzzed sentences once read as keys.
    expect(looksLikeCredential("xoxb --dry-run 01HZX3K8Q9M2N4P6R8T0V2W4Y6 later")).toBe(false);
    expect(looksLikeCredential("xoxb -----BEGIN OPS-4821 12:30 v2.4.0")).toBe(false);
    expect(looksLikeCredential("glpat- 550e8400-e29b-41d4-a716-446655440000 flow")).toBe(false);
    expect(looksLikeCredential("npm_ 4f3e2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f Ask")).toBe(false);
  });

  it("stays fast on hostile input made of invisible, fullwidth and prefix pieces", () => {
    const hostile = ["\u2063".repeat(20_000), `a${"\u034F".repeat(5)}`.repeat(3_000), fullwidth("sk- ").repeat(2_500), "glp at- ".repeat(2_000), "npm _".repeat(3_000), "sk _live_ ".repeat(1_500), "AIza ".repeat(3_000)];
    for (const reply of hostile) {
      const started = process.cpuUsage();
      looksLikeCredential(reply);
      createKnownSecretMatcher(SECRETS)(reply);
      parseReply([free, second], reply);
      expect(cpuMsSince(started)).toBeLessThan(250);
    }
  });
});
