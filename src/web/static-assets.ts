import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";

export interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

export const STATIC_DIR = join(import.meta.dirname, "static");

/** Every file of the page, read once: an allow-list, so no request path ever reaches the file system. */
export function loadStaticAssets(dir = STATIC_DIR): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  for (const name of readdirSync(dir)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (!contentType || !/^[a-z0-9-]+\.[a-z]+$/.test(name)) continue;
    const body = readFileSync(join(dir, name));
    assets.set(name, { body, contentType, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` });
  }
  return assets;
}
