import { GatewayError } from "../../kernel/errors.ts";
import type { MethodName, MethodParams } from "../../protocol/methods.ts";
import type { ResolvedBy, ResolveVia } from "../../record/record.ts";
import type { Principal } from "./principal.ts";

type Kind = Principal["kind"];

/** Which methods each kind of caller may use. Admin may use every method. */
const ALLOWED: Record<Exclude<Kind, "admin">, ReadonlySet<MethodName>> = {
  agent: new Set(["question.request", "question.waitAnswer", "question.get", "question.list", "question.resolve", "run.abort"]),
  bot: new Set(["question.get", "question.list", "question.resolve", "question.reply", "question.delivered", "question.deliveryFailed", "question.claimDelivery", "question.copyRendered", "question.reminderSent"]),
  web: new Set(["question.get", "question.list", "question.resolve", "question.reply", "question.waitAnswer"]),
  // A person may do what the Control UI may, on its own questions only (auth/scope.ts).
  person: new Set(["question.get", "question.list", "question.resolve", "question.reply", "question.waitAnswer"]),
};

const BOT_VIAS: ReadonlySet<ResolveVia> = new Set(["button", "text", "modal"]);
/** The Control UI answers with its stepper (`web`) or a reply typed in its composer (`text`). */
const WEB_VIAS: ReadonlySet<ResolveVia> = new Set(["web", "text"]);

/** The Control UI's callers: its admin session and people. */
const isWebKind = (principal: Principal) => principal.kind === "web" || principal.kind === "person";

export function forbidden(principal: Principal, what: string): GatewayError {
  const who =
    principal.kind === "bot"
      ? `a bot:${principal.surface} credential`
      : principal.kind === "agent"
        ? "an agent credential"
        : principal.kind === "person"
          ? `person ${principal.name}`
          : "the Control UI session";
  return new GatewayError("FORBIDDEN", `${who} may not ${what}`);
}

/** The longest display name a bot records (`by.userName`), in characters: a longer one is cut, ending in "…". */
export const BOT_USER_NAME_MAX = 100;
const CONTROLS = /[\p{Cc}\s]+/gu;
/** Invisible format characters (bidi overrides and marks, zero-width ones), but the joiner that makes one emoji of two. */
const INVISIBLE = /(?!\u200D)\p{Cf}/gu;

/**
 * A bot's `by.userName` as recorded (issue 37 §8): the platform's display name is all a bot can show for it, so it is
 * kept plain, one line without control or invisible characters (`\u202E` cannot make it read as another name), and
 * bounded. Empty when nothing visible is left.
 */
export function plainUserName(name: string): string {
  const plain = name.replace(INVISIBLE, "").replace(CONTROLS, " ").trim();
  const chars = [...plain];
  return chars.length <= BOT_USER_NAME_MAX ? plain : `${chars.slice(0, BOT_USER_NAME_MAX - 1).join("").trimEnd()}…`;
}

/** `by` as the gateway records it: the surface and `via` come from the credential; who pressed comes from a bot. */
function byFor(principal: Principal, given: ResolvedBy | undefined, defaultVia: ResolveVia): ResolvedBy {
  switch (principal.kind) {
    case "admin":
      return given ?? { surface: "api", via: defaultVia };
    case "agent":
      return { surface: "api", via: "api" };
    case "web":
      return { surface: "web", via: given && WEB_VIAS.has(given.via) ? given.via : "web" };
    case "person":
      return { surface: "web", user: principal.name, userName: principal.name, via: given && WEB_VIAS.has(given.via) ? given.via : "web" };
    case "bot": {
      const { user, userName, chat } = given ?? {};
      return {
        surface: principal.surface,
        via: given && BOT_VIAS.has(given.via) ? given.via : defaultVia === "api" ? "button" : defaultVia,
        ...(user !== undefined ? { user } : {}),
        ...(userName !== undefined && plainUserName(userName) !== "" ? { userName: plainUserName(userName) } : {}),
        ...(chat !== undefined ? { chat } : {}),
      };
    }
  }
}

/**
 * Checks that `principal` may call `method` with these params, and returns the params the gateway acts on: `by`
 * filled in from the credential, and a bot's reports held to its own surface. Throws FORBIDDEN otherwise.
 */
export function authorizeCall<M extends MethodName>(principal: Principal, method: M, params: MethodParams<M>): MethodParams<M> {
  if (principal.kind !== "admin" && !ALLOWED[principal.kind].has(method)) throw forbidden(principal, `call ${method}`);
  switch (method) {
    case "question.resolve": {
      const p = params as MethodParams<"question.resolve">;
      if (principal.kind === "agent" && !("cancel" in p)) throw forbidden(principal, "answer a question (it may cancel one)");
      return { ...p, by: byFor(principal, p.by, isWebKind(principal) ? "web" : "api") } as MethodParams<M>;
    }
    case "question.reply": {
      const p = params as MethodParams<"question.reply">;
      return { ...p, by: byFor(principal, p.by, isWebKind(principal) ? "web" : "text") } as MethodParams<M>;
    }
    case "question.delivered":
    case "question.deliveryFailed":
    case "question.claimDelivery":
    case "question.copyRendered":
    case "question.reminderSent": {
      const p = params as { surface: string };
      if (principal.kind === "bot" && p.surface !== principal.surface) throw forbidden(principal, `report for ${p.surface}`);
      return params;
    }
    default:
      return params;
  }
}
