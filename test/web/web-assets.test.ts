import { describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY } from "../../src/web/index.ts";
import { renderLoginPage } from "../../src/web/login-page.ts";
import { loadStaticAssets } from "../../src/web/static-assets.ts";

const assets = loadStaticAssets();
const text = (name: string) => assets.get(name)!.body.toString("utf8");
const scripts = [...assets.keys()].filter((name) => name.endsWith(".js"));

describe("Control UI assets", () => {
  it("serves every file the page refers to, and every module it imports, from the gateway itself", () => {
    const pages = [text("index.html"), renderLoginPage("none")];
    const referenced = pages.flatMap((html) => [...html.matchAll(/(?:src|href)="\/ui\/([^"]+)"/g)].map((m) => m[1]!));
    for (const name of scripts) {
      for (const m of text(name).matchAll(/^import .* from "\.\/([^"]+)";$/gm)) referenced.push(m[1]!);
    }
    expect(referenced.length).toBeGreaterThan(scripts.length);
    expect(referenced.filter((name) => !assets.has(name))).toEqual([]);
    // Every module is preloaded by the page, so loading takes one round trip (sign-in.js is the sign-in page's own).
    const preloaded = [...text("index.html").matchAll(/rel="modulepreload" href="\/ui\/([^"]+)"/g)].map((m) => m[1]);
    expect([...preloaded, "app.js", "sign-in.js"].sort()).toEqual([...scripts].sort());
    expect(renderLoginPage("none")).toContain('<script type="module" src="/ui/sign-in.js"></script>');
  });

  it.each([...assets.keys(), "the sign-in page"])("%s loads nothing from outside and has no inline script or style", (name) => {
    const source = name === "the sign-in page" ? renderLoginPage("query-token") : text(name);
    expect(source).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    if (name.endsWith(".html") || name === "the sign-in page") {
      expect(source).not.toMatch(/<script(?![^>]*\bsrc=)/);
      expect(source).not.toMatch(/\son[a-z]+=|\sstyle=/i);
    }
  });

  it.each(scripts)("%s never turns a string into HTML or code", (name) => {
    expect(text(name)).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\("on/);
  });

  it("sends a policy that allows only the gateway's own script, style and socket, and enforces Trusted Types", () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("require-trusted-types-for 'script'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
  });
});
