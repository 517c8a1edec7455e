import { formatTime, h } from "./dom.js";

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

/** Keeps every expiry clock on the page current (one timer for all of them). */
export function startCountdowns() {
  setInterval(() => {
    const now = Date.now();
    for (const el of document.querySelectorAll("[data-expires-at]")) if (el instanceof HTMLElement) update(el, now);
  }, TICK_MS);
}
