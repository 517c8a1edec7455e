/** HTML escaping for the server-rendered pages: every value written into them goes through this. */
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/gu, (c) => ESCAPES[c]!);
