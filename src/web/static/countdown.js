import { formatTime, h } from "./dom.js";
import { REMINDER_ICON, reminderMarks } from "./shared.js";
/** @import { QuestionRecord } from "./shared.js" */

/** Under this much time left the clock counts seconds (1:59) and turns to the warning colour under a minute. */
const SECONDS_SHOWN_BELOW_MS = 120_000;
const SOON_MS = 60_000;
const TICK_MS = 1000;

/**
 * How long is left, for people: "1 h" (at most an hour: timeoutSeconds is clamped to 3600), "14 min", then "1:59".
 * @param {number} ms
 */
export function timeLeft(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds >= 3600) return "1 h";
  if (seconds * 1000 >= SECONDS_SHOWN_BELOW_MS) return `${Math.round(seconds / 60)} min`;
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/**
 * @param {HTMLElement} el
 * @param {number} now
 */
function update(el, now) {
  const at = Number(el.dataset.expiresAt);
  const text = `${timeLeft(at - now)} left · until ${formatTime(at)}`;
  if (el.textContent !== text) el.textContent = text;
  el.classList.toggle("expires-soon", at - now < SOON_MS);
}

/**
 * When a pending question expires, as a live clock ("14 min left · until 14:05"). A timer, whose changes are not
 * announced (also inside the timeline's log, which announces what is added): a screen reader reads it when it gets
 * there, rather than hearing every second.
 * @param {number} expiresAtMs
 */
export function expiryClock(expiresAtMs) {
  const el = h("time", {
    class: "expires",
    role: "timer",
    "aria-live": "off",
    dateTime: new Date(expiresAtMs).toISOString(),
    "data-expires-at": String(expiresAtMs),
  });
  update(el, Date.now());
  return el;
}

/**
 * Where `atMs` falls between asking and expiry, as a CSS percentage.
 * @param {{ createdAtMs: number, expiresAtMs: number }} record
 * @param {number} atMs
 */
function percentOf({ createdAtMs, expiresAtMs }, atMs) {
  const share = expiresAtMs > createdAtMs ? (atMs - createdAtMs) / (expiresAtMs - createdAtMs) : 1;
  return `${(Math.min(1, Math.max(0, share)) * 100).toFixed(2)}%`;
}

/**
 * @param {HTMLElement} bar
 * @param {number} now
 */
function updateBar(bar, now) {
  const fill = bar.firstElementChild;
  const span = { createdAtMs: Number(bar.dataset.askedAt), expiresAtMs: Number(bar.dataset.endsAt) };
  if (fill instanceof HTMLElement) fill.style.width = percentOf(span, now);
}

/**
 * The time gone between asking and expiry as a slim bar, with a mark at each reminder moment (filled once the
 * reminder went out). For the eye: the clock says the time left in words, and {@link reminderNote} the reminder.
 * @param {QuestionRecord} record
 */
export function timeBar(record) {
  const marks = reminderMarks(record).map((mark) => {
    const el = h("span", { class: mark.sent ? "time-mark sent" : "time-mark", "data-reminder-at": String(mark.atMs) });
    el.style.left = percentOf(record, mark.atMs);
    return el;
  });
  const bar = h(
    "div",
    { class: "time-bar", "aria-hidden": "true", "data-asked-at": String(record.createdAtMs), "data-ends-at": String(record.expiresAtMs) },
    h("span", { class: "time-fill" }),
    marks,
  );
  updateBar(bar, Date.now());
  return bar;
}

/**
 * "⏰ Reminder sent" once the gateway sent a reminder for this question (issue 20 §1), else nothing.
 * @param {QuestionRecord} record
 */
export function reminderNote(record) {
  if (!record.remindersSent?.length) return null;
  return h("span", { class: "reminder-sent" }, h("span", { class: "outcome-icon", "aria-hidden": "true" }, REMINDER_ICON), " Reminder sent");
}

/** The page's own title, before any time is put in front of it. */
let baseTitle = "";

/**
 * The page title says how long the soonest pending question has left ("(4:59) ask-user-bridge"), with ⏰ in front
 * once it was reminded, so a tab in the background shows it too.
 * @param {QuestionRecord[]} pending
 * @param {number} now
 */
export function showTimeLeftInTitle(pending, now) {
  baseTitle ||= document.title;
  const soonest = pending.reduce((/** @type {QuestionRecord | undefined} */ first, r) => (!first || r.expiresAtMs < first.expiresAtMs ? r : first), undefined);
  const title = soonest ? `${soonest.remindersSent?.length ? `${REMINDER_ICON} ` : ""}(${timeLeft(soonest.expiresAtMs - now)}) ${baseTitle}` : baseTitle;
  if (document.title !== title) document.title = title;
}

/**
 * Keeps every expiry clock and time bar on the page current (one timer for all of them), then calls `onTick`.
 * @param {(now: number) => void} [onTick]
 */
export function startCountdowns(onTick) {
  setInterval(() => {
    const now = Date.now();
    for (const el of document.querySelectorAll("[data-expires-at]")) if (el instanceof HTMLElement) update(el, now);
    for (const el of document.querySelectorAll(".time-bar")) if (el instanceof HTMLElement) updateBar(el, now);
    onTick?.(now);
  }, TICK_MS);
}
