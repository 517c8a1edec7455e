/**
 * The files of Codex's pending file changes. `item/fileChange/requestApproval` names only an item id; the files are
 * in the `fileChange` item that `item/started` announced just before, so the app-server's notifications are watched
 * and each item is kept until `item/completed`.
 */
import { fileChangeItem, type FileChangeSummary } from "./codex-protocol.ts";

/** Items kept at most: a client that never sees `item/completed` keeps the newest. */
const MAX_ITEMS = 256;

export interface FileChangeIndex {
  /** Every app-server notification goes here; only `item/started` and `item/completed` of a fileChange are kept. */
  observe(method: string, params: unknown): void;
  /** The files of a fileChange item announced and not yet completed. */
  changes(itemId: string): FileChangeSummary[] | undefined;
}

export function createFileChangeIndex(): FileChangeIndex {
  const items = new Map<string, FileChangeSummary[]>();
  return {
    observe(method, params) {
      if (method !== "item/started" && method !== "item/completed") return;
      const parsed = fileChangeItem.safeParse(params);
      if (!parsed.success) return;
      const { id, changes } = parsed.data.item;
      items.delete(id);
      if (method === "item/completed") return;
      items.set(id, changes.map(({ path, kind, diff }) => ({ path, kind: kind.type, ...(kind.move_path ? { movePath: kind.move_path } : {}), ...(typeof diff === "string" ? { diff } : {}) })));
      if (items.size > MAX_ITEMS) items.delete(items.keys().next().value!);
    },
    changes: (itemId) => items.get(itemId),
  };
}
