/**
 * The lists of platforms outside src/ derive from the registry (src/platforms/descriptors.ts), so the next platform
 * cannot be forgotten in them: deploy/ routes every platform's inbound listener (each descriptor's `inbound`), and the
 * package.json description names every platform.
 *
 * deploy/nginx.conf and deploy/Caddyfile route each path of each HTTP listener to the loopback port its descriptor
 * defaults to, and route nothing else to a bot; their env lines and the systemd unit's bind each listener to loopback
 * on that port; an SMTP listener is named and said to be out of an HTTP proxy's reach; a platform with no listener is
 * named with the descriptor's reason.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEAMS_MESSAGES_PATH } from "../../bots/teams/server.ts";
import { PLATFORM_LIST, type Platform } from "../../src/platforms/descriptors.ts";
import { ENV_KIT } from "../../src/platforms/kit/env.ts";
import type { Inbound } from "../../src/platforms/kit/descriptor.ts";
import { MATTERMOST_ACTIONS_PATH, MATTERMOST_DIALOG_PATH } from "../../src/platforms/mattermost/payload.ts";
import { ROOT } from "../helpers/cli.ts";

type Listener = Exclude<Inbound, { none: string }> & { platform: Platform; port: number };

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const NGINX = read("deploy/nginx.conf");
const CADDY = read("deploy/Caddyfile");
const UNIT = read("deploy/ask-user-bridge.service");
const GATEWAY_PORT = 8787;

/** Each platform's listener, with the port its variable defaults to. */
const LISTENERS: Listener[] = PLATFORM_LIST.flatMap((platform) => {
  const inbound: Inbound = platform.inbound;
  if ("none" in inbound) return [];
  const portVar = (platform.env(ENV_KIT) as Record<string, { parse(v: unknown): unknown }>)[inbound.portVar]!;
  return [{ ...inbound, platform, port: Number(portVar.parse(undefined)) }];
});
const HTTP = LISTENERS.filter((l) => l.protocol === "http");
const SILENT = PLATFORM_LIST.flatMap((platform) => ("none" in platform.inbound ? [{ platform, why: platform.inbound.none }] : []));

/** nginx: `location = PATH { proxy_pass http://UPSTREAM; … }`, with each upstream's `server 127.0.0.1:PORT`. */
function nginxRoutes(): Map<string, number> {
  const upstreams = new Map([...NGINX.matchAll(/^upstream (\S+)\s*\{\s*server 127\.0\.0\.1:(\d+);/gmu)].map((m) => [m[1]!, Number(m[2])]));
  return new Map([...NGINX.matchAll(/^\s*location = (\S+) \{\s*proxy_pass http:\/\/(\w+);/gmu)].map((m) => [m[1]!, upstreams.get(m[2]!) ?? Number.NaN]));
}

/** Caddy: `handle PATH { reverse_proxy 127.0.0.1:PORT }`. */
function caddyRoutes(): Map<string, number> {
  return new Map([...CADDY.matchAll(/^\s*handle (\S+) \{\s*reverse_proxy 127\.0\.0\.1:(\d+)\s*\}/gmu)].map((m) => [m[1]!, Number(m[2])]));
}

/** The routes to the bots: every proxied path except the gateway's own. */
const toBots = (routes: Map<string, number>) => Object.fromEntries([...routes].filter(([, port]) => port !== GATEWAY_PORT));
const expected = Object.fromEntries(HTTP.flatMap((l) => l.paths.map((path) => [path, l.port])));

describe("deploy/ routes every platform's inbound listener (from the descriptors)", () => {
  it("the registry has listeners to route, each with its port variable in portVars", () => {
    expect(HTTP.length).toBeGreaterThan(0);
    for (const platform of PLATFORM_LIST) expect(platform.portVars, platform.surface).toEqual("none" in platform.inbound ? [] : [platform.inbound.portVar]);
    for (const l of HTTP) expect(l.paths.length, l.platform.surface).toBeGreaterThan(0);
  });

  it("the descriptors' paths are the ones the bots serve", () => {
    const paths = (surface: string) => HTTP.find((l) => l.platform.surface === surface)?.paths;
    expect(paths("teams")).toEqual([TEAMS_MESSAGES_PATH]);
    expect(paths("mattermost")).toEqual([MATTERMOST_ACTIONS_PATH, MATTERMOST_DIALOG_PATH]);
  });

  it("nginx routes each HTTP listener's paths to its port, and nothing else to a bot", () => {
    expect(toBots(nginxRoutes())).toEqual(expected);
  });

  it("Caddy routes each HTTP listener's paths to its port, and nothing else to a bot", () => {
    expect(toBots(caddyRoutes())).toEqual(expected);
  });

  it.each([
    ["deploy/nginx.conf", NGINX],
    ["deploy/Caddyfile", CADDY],
    ["deploy/ask-user-bridge.service", UNIT],
  ])("%s binds every listener to loopback on its port (the env file's lines)", (_, text) => {
    for (const l of LISTENERS) {
      expect(text, l.hostVar).toMatch(new RegExp(`^#.*\\b${l.hostVar}=127\\.0\\.0\\.1\\b`, "mu"));
      expect(text, l.portVar).toMatch(new RegExp(`^#.*\\b${l.portVar}=${l.port}\\b`, "mu"));
    }
  });

  it.each([
    ["deploy/nginx.conf", NGINX],
    ["deploy/Caddyfile", CADDY],
  ])("%s says why a listener is not routed: SMTP is not HTTP, and some platforms have none", (_, text) => {
    for (const l of LISTENERS.filter((l) => l.protocol === "smtp")) {
      expect(text).toMatch(new RegExp(`^# - ${l.platform.title}: its inbound listener \\(${l.portVar}\\) speaks SMTP, not HTTP`, "mu"));
    }
    for (const { platform, why } of SILENT) expect(text).toContain(`# - ${platform.title}: no listener; ${why}`);
  });

  it("the systemd unit names the platforms that listen on nothing", () => {
    expect(UNIT).toContain(`# ${SILENT.map((s) => s.platform.title).join(" and ")} bots listen on nothing`);
  });
});

describe("package.json", () => {
  it("its description names every platform, in registry order", () => {
    const { description } = JSON.parse(read("package.json")) as { description: string };
    const titles = PLATFORM_LIST.map((p) => p.title);
    const named = `on ${titles.slice(0, -1).join(", ")}, ${titles.at(-1)} or the web`;
    expect(description.toLowerCase()).toContain(named.toLowerCase());
  });
});
