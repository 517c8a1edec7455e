/** @typedef {Node | string | null | undefined | false} Child */

/**
 * Builds an element. Props set properties (or attributes for aria-/data- names), `on…` props add listeners,
 * and children are appended as nodes or text nodes. Nothing is ever parsed as HTML.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {...(Child | readonly Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  const properties = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (el));
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = String(value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (!key.includes("-") && key in el) properties[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  el.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return el;
}

/**
 * "14:05" in the person's locale.
 * @param {number} ms
 */
export function formatTime(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/**
 * Rebuilds part of the page without losing the person's place: the focused control (found again by its
 * data-key) and the caret in a text field survive.
 * @param {Element} container
 * @param {() => void} build
 */
export function rebuildKeepingFocus(container, build) {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && container.contains(active) ? active.dataset.key : undefined;
  const caret = (active instanceof HTMLInputElement && active.type === "text") || active instanceof HTMLTextAreaElement ? active.selectionStart : null;
  build();
  if (!key) return;
  const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (!(again instanceof HTMLElement) || again.matches(":disabled")) return;
  again.focus({ preventScroll: true });
  if (caret !== null && (again instanceof HTMLInputElement || again instanceof HTMLTextAreaElement)) again.setSelectionRange(caret, caret);
}
