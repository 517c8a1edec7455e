/**
 * The layers, enforced by `npm test` (dependency-cruiser). Read top to bottom, each layer may import the ones
 * below it and never the ones above:
 *   bin                      the CLI entry
 *   bots/<platform>          one folder per platform SDK → bridge, client, render, parse, contract
 *   src/cli                  commands → gateway, client, web, and everything below (the mcp command, mcp.ts,
 *                            runs the MCP server in src/cli/mcp)
 *   src/frameworks           optional agent-framework adapters (subpath exports) → coding-agents, client, core
 *   src/coding-agents        coding agents' own questions and approvals (Claude Code, Codex) → client, contract
 *   src/gateway, src/web     the server and its Control UI → store, credentials, and the pure core
 *   src/client               the gateway client and SDK → protocol, and the pure core
 *   src/protocol             the wire types both sides share (method params, frames, events, payloads) → contract
 *   src/bridge               platform-free bot logic → render, parse, contract
 *   src/platforms/<p>/       a platform's renderers (payload.ts, modal.ts, callback-data.ts) → render, parse,
 *                            contract; src/render/index.ts re-exports them for the bots (src/platforms/renderers.ts)
 *   src/render, src/parse    pure → contract and the shared leaves (src/text.ts, src/surfaces.ts, …)
 *   src/contract             the ask_user contract (and the parse outcome the protocol carries)
 *   src/platforms            the registry (index.ts, descriptors.ts), each platform's descriptor (platform.ts,
 *                            surface.ts, escaping.ts) and src/platforms/kit: pure leaves, which any layer may read
 *   src/kernel               the bottom (backoff; issue 26 adds text and errors): imports nothing else in src/
 * A platform's folder thus holds two layers, its descriptor below render and its renderers above it, so the folder
 * cycle src/render ↔ src/platforms is by design: no-folder-cycles leaves src/platforms out, and the platform rules
 * below (with no-module-cycles) fix the direction module by module instead.
 * Nothing in src/ imports bots/, test/, bench/ or bin/, no folder imports a folder that imports it back, and a
 * subfolder never imports its parent folder's own files (the parent uses the subfolder, not the other way round).
 * The loose files at the src/ root are a fixed list (ROOT_FILES): issue 26 moves them into src/record, src/kernel
 * and src/runtime, whose rules are already here.
 */
const folder = (name) => `^src/${name}/`;

/** `from` may not import `to`. */
const forbid = (name, from, to, comment) => ({ name, comment, severity: "error", from: { path: from }, to: { path: to } });

/**
 * The files at the src/ root today, and the only ones allowed there: no layer rule can name a loose root file, so
 * none is added. Issue 26 moves these into src/record, src/kernel and src/runtime; take each off the list as it
 * moves.
 */
const ROOT_FILES = [
  "config", "data-dir", "index", "late-window", "log", "log-level", "record", "record-freshness",
  "reminder-timing", "sdk", "surfaces", "targets", "token-file", "tool",
];
/** Any src/ root file not on the list. */
const NEW_ROOT_FILE = `^src/(?!(?:${ROOT_FILES.join("|")})\\.ts$)[^/]+$`;
const NEW_ROOT_FILE_COMMENT = "a new file at the src/ root: put it in its layer's folder (src/kernel, src/contract, …), not next to the loose files issue 26 moves out";

/** The descriptor side of src/platforms: the registry, the kit, and each platform's descriptor, name and escaping. */
const PLATFORM_LEAF = "^src/platforms/(index\\.ts$|descriptors\\.ts$|kit/|[^/]+/(platform|surface|escaping)\\.ts$)";
/** The renderer side: what a platform's folder holds besides its descriptor. */
const PLATFORM_RENDERER = "^src/platforms/(?!kit/)[^/]+/(?!(platform|surface|escaping)\\.ts$)";

module.exports = {
  forbidden: [
    forbid("src-not-to-outside", "^src/", "^(bots|test|bench|bin)/", "src/ is the shared core: it never imports the bots, tests, benchmarks or CLI entry"),
    forbid("kernel-is-the-bottom", folder("kernel"), "^src/(?!kernel/)", "the kernel is the bottom: it imports nothing in src/ but itself"),
    forbid("contract-is-the-bottom", folder("contract"), "^src/(render|parse|bridge|client|gateway|web|cli|frameworks|protocol|record|runtime)/", "the contract imports nothing above it"),
    forbid("record-is-pure", folder("record"), "^src/(render|parse|bridge|client|gateway|web|cli|frameworks|protocol|coding-agents|runtime)/", "the question record is pure data and rules: it loads no renderer, parser, protocol, client, server, CLI or runtime (issue 26; src/record does not exist yet)"),
    forbid("runtime-not-below-render", "^src/(render|parse|contract|record|kernel)/", folder("runtime"), "the runtime (config, logs, files) sits above the pure layers: render, parse, contract, record and kernel never load it (issue 26; src/runtime does not exist yet)"),
    forbid("render-parse-are-pure", "^src/(render|parse)/", "^src/(bridge|client|gateway|web|cli|frameworks|protocol)/", "the renderer and parser are pure: no bridge, client, gateway, web or CLI"),
    forbid("bridge-below-transport", folder("bridge"), "^src/(gateway|web|cli|frameworks)/", "the bridge talks to the gateway through an injected client, never the server or the CLI"),
    forbid("client-not-to-server", folder("client"), "^src/(gateway|web|cli|bridge|frameworks)/", "the client and SDK never load the server, the web app, the CLI or the bridge"),
    forbid("protocol-is-shared", folder("protocol"), "^src/(gateway|client|web|cli|bridge|frameworks)/", "the wire types are shared by the gateway and its clients, so they import neither"),
    forbid("protocol-not-to-parse-render", folder("protocol"), "^src/(parse|render)/", "the wire types are data: what they share with the parser or the renderer lives below both, in src/contract"),
    forbid("gateway-web-not-to-cli", "^src/(gateway|web)/", "^src/(cli|bridge|frameworks)/", "the gateway and Control UI never import the CLI or the bridge"),
    forbid("gateway-not-to-web", folder("gateway"), folder("web"), "the gateway serves a web app it is handed; it never imports one"),
    forbid("gateway-not-to-client", folder("gateway"), folder("client"), "the server never loads the client; what both need (backoff) lives below both, in src/kernel"),
    forbid("store-is-below-the-gateway", "^src/gateway/store/", "^src/gateway/(?!store/)", "the store knows nothing of the gateway around it"),
    forbid("coding-agents-are-clients", folder("coding-agents"), "^src/(gateway|web|cli|bridge|frameworks)/", "the coding-agent rules ask through the client, like any agent; they load no server, CLI, bridge or framework"),
    forbid("only-callers-load-coding-agents", "^src/(?!coding-agents/|cli/|frameworks/|index\\.ts$)", folder("coding-agents"), "only the CLI, the framework adapters and the main entry (requireApproval) use the coding-agent rules"),
    forbid("frameworks-are-leaves", "^src/(?!frameworks/)", folder("frameworks"), "nothing in src/ loads an agent framework adapter (they are optional subpath exports)"),
    forbid("platforms-are-pure", folder("platforms"), "^src/(bridge|client|gateway|web|cli|frameworks|protocol|coding-agents|runtime)/", "a platform's descriptor and renderers are pure: no bridge, client, gateway, web, CLI or protocol"),
    forbid("platform-descriptors-are-leaves", PLATFORM_LEAF, "^src/(?!platforms/)", "the registry and the descriptors are leaves every layer may read: they import nothing of src/ outside src/platforms"),
    forbid("descriptors-load-no-renderer", PLATFORM_LEAF, PLATFORM_RENDERER, "a descriptor (and the registry) never loads a renderer: the renderers sit above src/render, the descriptors below it"),
    forbid("registry-stays-light", "^src/platforms/index\\.ts$", "^src/platforms/(?!kit/)[^/]+/(?!surface\\.ts$)", "the registry of names holds only each platform's surface.ts: the Control UI bundles it (src/surfaces.ts); the descriptors are src/platforms/descriptors.ts"),
    forbid("core-reads-platforms-through-the-registry", "^src/(?!platforms/)", "^src/platforms/(?!kit/)[^/]+/", "outside src/platforms, the core reads a platform only through the registry (src/platforms/index.ts, descriptors.ts) and src/platforms/kit (src/render/index.ts re-exports the renderers through src/platforms/renderers.ts)"),
    forbid("bots-not-to-server-or-cli", "^bots/", "^src/(gateway|web|cli)/", "a bot is a client of the gateway: bridge, client, render, parse, contract"),
    forbid("bots-stay-in-their-folder", "^bots/([^/]+)/", "^bots/(?!$1/|shared\\.ts$)", "a platform's folder imports only itself and bots/shared.ts"),
    {
      name: "no-folder-cycles",
      comment: "no folder imports a folder that (through others) imports it back",
      severity: "error",
      scope: "folder",
      // src/platforms is two layers by design (see the top): the platform rules and no-module-cycles cover it.
      from: { pathNot: "^src/platforms(/|$)" },
      to: { circular: true, pathNot: "^src/platforms(/|$)" },
    },
    {
      // dependency-cruiser's folder graph counts a subfolder's modules as the parent folder's own (src/cli holds
      // src/cli/mcp), so the parent's imports of its subfolder never appear in it, and no-folder-cycles cannot see
      // a cycle between a folder and its subfolder (src/cli ↔ src/cli/mcp, src/gateway ↔ src/gateway/credentials).
      // This rule closes the gap by fixing the direction: the parent may use its subfolders, never the reverse.
      // The src/ root itself is left out: its loose files are the no-new-root-files list.
      name: "subfolder-below-parent",
      comment: "a subfolder never imports its parent folder's own files: move what both need into the subfolder or a folder below both",
      severity: "error",
      from: { path: "^src/[^/]+/" },
      to: { ancestor: true, pathNot: "^src/[^/]+$" },
    },
    // A new root file breaks one of these three: something imports it, it imports something, or neither (an orphan).
    {
      name: "no-new-root-files",
      comment: NEW_ROOT_FILE_COMMENT,
      severity: "error",
      from: {},
      to: { path: NEW_ROOT_FILE },
    },
    {
      name: "no-new-root-files",
      comment: NEW_ROOT_FILE_COMMENT,
      severity: "error",
      from: { path: NEW_ROOT_FILE },
      to: {},
    },
    {
      name: "no-new-root-files",
      comment: NEW_ROOT_FILE_COMMENT,
      severity: "error",
      from: { path: NEW_ROOT_FILE, orphan: true },
      to: {},
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
