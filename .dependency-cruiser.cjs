/**
 * The layers, enforced by `npm test` (dependency-cruiser). Read top to bottom, each layer may import the ones
 * below it and never the ones above:
 *   bin                      the CLI entry
 *   bots/<platform>          one folder per platform SDK → bridge, client, render, parse, contract
 *   src/cli                  commands (and the MCP server) → gateway, client, web, and everything below
 *   src/frameworks           optional agent-framework adapters (subpath exports) → coding-agents, client, core
 *   src/coding-agents        coding agents' own questions and approvals (Claude Code, Codex) → client, contract
 *   src/gateway, src/web     the server and its Control UI → store, and the pure core
 *   src/client               the gateway client and SDK → protocol, and the pure core
 *   src/protocol             the wire types both sides share (method params, frames, events, payloads)
 *   src/bridge               platform-free bot logic → render, parse, contract
 *   src/render, src/parse    pure → contract and the shared leaves (src/text.ts, src/surfaces.ts, …)
 *   src/contract             the ask_user contract
 * Nothing in src/ imports bots/, test/, bench/ or bin/, and no folder imports a folder that imports it back.
 */
const folder = (name) => `^src/${name}/`;

/** `from` may not import `to`. */
const forbid = (name, from, to, comment) => ({ name, comment, severity: "error", from: { path: from }, to: { path: to } });

module.exports = {
  forbidden: [
    forbid("src-not-to-outside", "^src/", "^(bots|test|bench|bin)/", "src/ is the shared core: it never imports the bots, tests, benchmarks or CLI entry"),
    forbid("contract-is-the-bottom", folder("contract"), "^src/(render|parse|bridge|client|gateway|web|cli|frameworks|protocol)/", "the contract imports nothing above it"),
    forbid("render-parse-are-pure", "^src/(render|parse)/", "^src/(bridge|client|gateway|web|cli|frameworks|protocol)/", "the renderer and parser are pure: no bridge, client, gateway, web or CLI"),
    forbid("bridge-below-transport", folder("bridge"), "^src/(gateway|web|cli|frameworks)/", "the bridge talks to the gateway through an injected client, never the server or the CLI"),
    forbid("client-not-to-server", folder("client"), "^src/(gateway|web|cli|bridge|frameworks)/", "the client and SDK never load the server, the web app, the CLI or the bridge"),
    forbid("protocol-is-shared", folder("protocol"), "^src/(gateway|client|web|cli|bridge|frameworks)/", "the wire types are shared by the gateway and its clients, so they import neither"),
    forbid("gateway-web-not-to-cli", "^src/(gateway|web)/", "^src/(cli|bridge|frameworks)/", "the gateway and Control UI never import the CLI or the bridge"),
    forbid("gateway-not-to-web", folder("gateway"), folder("web"), "the gateway serves a web app it is handed; it never imports one"),
    forbid("store-is-below-the-gateway", "^src/gateway/store/", "^src/gateway/(?!store/)", "the store knows nothing of the gateway around it"),
    forbid("coding-agents-are-clients", folder("coding-agents"), "^src/(gateway|web|cli|bridge|frameworks)/", "the coding-agent rules ask through the client, like any agent; they load no server, CLI, bridge or framework"),
    forbid("only-callers-load-coding-agents", "^src/(?!coding-agents/|cli/|frameworks/|index\\.ts$)", folder("coding-agents"), "only the CLI, the framework adapters and the main entry (requireApproval) use the coding-agent rules"),
    forbid("frameworks-are-leaves", "^src/(?!frameworks/)", folder("frameworks"), "nothing in src/ loads an agent framework adapter (they are optional subpath exports)"),
    forbid("bots-not-to-server-or-cli", "^bots/", "^src/(gateway|web|cli)/", "a bot is a client of the gateway: bridge, client, render, parse, contract"),
    forbid("bots-stay-in-their-folder", "^bots/([^/]+)/", "^bots/(?!$1/|shared\\.ts$)", "a platform's folder imports only itself and bots/shared.ts"),
    {
      name: "no-folder-cycles",
      comment: "no folder imports a folder that (through others) imports it back",
      severity: "error",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-module-cycles",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules)/|\\.d\\.ts$" },
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
  },
};
