import { listAll, listPages } from "./shared.js";
import { createActions } from "./actions.js";
import { startCountdowns } from "./countdown.js";
import { createGatewayLink, toGatewayError } from "./gateway-link.js";
import { answerableRecords, currentRecord, forgetAll, records, ui, upsert } from "./state.js";
import { createView } from "./view.js";
/** @import { QuestionRecord } from "./shared.js" */
/** @import { PageElements } from "./view.js" */

/** A `/#token=…` sign-in link opened while signed in: the token is not needed, so it leaves the address bar. */
function dropTokenFromAddress() {
  if (new URLSearchParams(location.hash.slice(1)).has("token")) history.replaceState(null, "", location.pathname);
}
dropTokenFromAddress();
window.addEventListener("hashchange", dropTokenFromAddress);

/** How many recent records a (re)load brings back besides every pending one. */
const HISTORY_LIMIT = 500;

/**
 * An element of index.html, of the kind the page expects.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} kind
 * @returns {T}
 */
function byId(id, kind) {
  const el = document.getElementById(id);
  if (!(el instanceof kind)) throw new Error(`index.html has no ${kind.name} #${id}`);
  return el;
}

/** @type {PageElements} */
const els = {
  status: byId("status", HTMLElement),
  timeline: byId("timeline", HTMLElement),
  panel: byId("panel", HTMLElement),
  qbar: byId("qbar", HTMLElement),
  composer: byId("composer", HTMLFormElement),
  composerText: byId("composer-text", HTMLTextAreaElement),
  composerSend: byId("composer-send", HTMLButtonElement),
};
const narrowQuery = window.matchMedia("(max-width: 599.98px)");

const link = createGatewayLink({
  onOpen: () => void resync(),
  onEvent: (name, record) => {
    if (!name.startsWith("question.")) return;
    upsert(record);
    view.render();
  },
  onStatus: (status) => {
    ui.connection = status;
    // A session that ended (signed out elsewhere, expired, or the gateway restarted) shows nothing it used to.
    if (status === "signed-out") forgetAll();
    view.render();
  },
});
const actions = createActions({ call: (method, params) => link.call(method, params), render: (focus) => view.render(focus) });
const view = createView({ els, actions, narrowQuery });

/** @type {import("./shared.js").CallMethod} */
const call = (method, params) => /** @type {Promise<any>} */ (link.call(method, /** @type {object} */ (params)));

/** Recent history: pages until HISTORY_LIMIT records (large records end a page early). */
async function recentHistory() {
  /** @type {QuestionRecord[]} */
  const recent = [];
  for await (const page of listPages(call, { limit: HISTORY_LIMIT })) {
    recent.push(...page);
    if (recent.length >= HISTORY_LIMIT) break;
  }
  return recent;
}

/** After every (re)connection: every pending record, recent history, and a fresh look at anything we thought pending. */
async function resync() {
  try {
    const [open, recent] = await Promise.all([listAll(call, { status: "pending" }), recentHistory()]);
    const openIds = new Set(open.map((r) => r.id));
    for (const record of [...recent, ...open]) upsert(record);
    const stale = [...records.values()].filter((r) => r.status === "pending" && !openIds.has(r.id));
    await Promise.all(stale.map((r) => actions.refresh(r.id)));
    ui.loaded = true;
    view.render();
  } catch (error) {
    if (toGatewayError(error).code === "UNAUTHORIZED") link.stop("signed-out");
  }
}

/**
 * While the panel is open: number keys pick options, Enter advances, Escape collapses.
 * @param {KeyboardEvent} event
 */
function onKeydown(event) {
  if (els.panel.hidden || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
  const target = event.target;
  const typing = (target instanceof HTMLInputElement && target.type === "text") || target instanceof HTMLTextAreaElement;
  const record = currentRecord();
  if (!record) return;
  if (/^[1-9]$/.test(event.key) && !typing) {
    const input = /** @type {NodeListOf<HTMLInputElement>} */ (els.panel.querySelectorAll(".option input"))[Number(event.key) - 1];
    if (input && !input.disabled) {
      event.preventDefault();
      input.focus();
      input.click();
    }
  } else if (event.key === "Enter" && !event.shiftKey) {
    if (target instanceof HTMLButtonElement || target instanceof HTMLAnchorElement) return;
    event.preventDefault();
    actions.stepper(record).next();
  } else if (event.key === "Escape") {
    event.preventDefault();
    actions.collapse();
  }
}

els.composer.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await actions.reply(els.composerText.value.trim())) {
    els.composerText.value = "";
    view.fitComposer();
  }
  els.composerText.focus();
});
els.composerText.addEventListener("input", () => view.fitComposer());
window.addEventListener("resize", () => view.fitComposer());
els.composerText.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing && answerableRecords().length > 0) {
    event.preventDefault();
    els.composer.requestSubmit();
  }
});
document.addEventListener("keydown", onKeydown);
narrowQuery.addEventListener("change", () => view.render());
window.addEventListener("online", () => link.nudge());
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") link.nudge();
});

view.render();
startCountdowns((now) => view.tick(now));
link.start();
