/**
 * The layers, enforced by `npm test` (dependency-cruiser). Read top to bottom, each layer may import the ones
 * below it and never the ones above:
 *   bin                      the CLI entry
 *   bots/<platform>          one folder per platform SDK → bridge, client, render, parse, contract, and its own
 *                            platform's folder src/platforms/<platform>/ (never another's: each bot loads only its
 *                            own platform's renderers)
 *   src/cli                  commands → gateway, client, web, and everything below (the mcp command, mcp.ts,
 *                            runs the MCP server in src/cli/mcp)
 *   src/frameworks           optional agent-framework adapters (subpath exports) → coding-agents, client, core
 *   src/coding-agents        coding agents' own questions and approvals (Claude Code, Codex) → client, contract
 *   src/gateway, src/web     the server and its Control UI → store, credentials, and the pure core. Inside the
 *                            gateway, run.ts wires server/ (HTTP, WebSocket, dispatch) → service/ (the question
 *                            lifecycle; no transport) → auth/ → store/; the store's backends (memory/,
 *                            sqlite/, postgres/) import only themselves and store/kit/, and store/open-stores.ts
 *                            loads the chosen one
 *   src/client               the gateway client and SDK (sdk.ts) → protocol, runtime, and the pure core
 *   src/runtime              process plumbing (config, logs, the data dir, the token file) → record, platforms
 *   src/protocol             the wire types both sides share (method params, frames, events, payloads) → record,
 *                            contract
 *   src/bridge               platform-free bot logic → render, parse, contract, and the registry; it reaches no
 *                            platform's renderers (the bot hands it a SurfaceAdapter that renders)
 *   src/platforms/<p>/       a platform's renderers (payload.ts, modal.ts, callback-data.ts) → render, parse,
 *                            contract, src/platforms/kit and its own folder, never another platform's; its bot
 *                            imports them directly (nothing re-exports them: src/render never reaches them)
 *   src/render, src/parse    pure → record, contract, kernel and the platform leaves
 *   src/record               the question record and its rules (state, follow-ups, the late window, reminder
 *                            timing, freshness, targets): pure, no zod of its own, no I/O → contract, kernel
 *   src/contract             the ask_user contract and the tool (tool.ts), and the parse outcome the protocol
 *                            carries → kernel
 *   src/platforms            the registry (index.ts, descriptors.ts, surfaces.ts), each platform's descriptor
 *                            (platform.ts, surface.ts, escaping.ts) and src/platforms/kit: pure leaves, which any
 *                            layer may read
 *   src/kernel               the bottom (text, errors and the issue cap, backoff): imports nothing else in src/
 * A platform's folder thus holds two layers, its descriptor below render and its renderers above it, so the folder
 * cycle src/render ↔ src/platforms is by design: no-folder-cycles leaves src/platforms out, and the platform rules
 * below (with no-module-cycles) fix the direction module by module instead. The same goes for the layers under
 * render that read the platform leaves (src/contract reads the surfaces, src/record the example targets): their
 * folder cycles run through src/platforms (record → platforms → record), and dependency-cruiser cannot skip a
 * folder in the middle of a cycle, so no-folder-cycles leaves src/record, src/contract and src/kernel out too. That
 * loses nothing: their own rules (record-is-pure, contract-is-the-bottom, kernel-is-the-bottom) let them import
 * only downward and the platform leaves, so any cycle through them runs through src/platforms.
 * Nothing in src/ imports bots/, test/, bench/ or bin/, no folder imports a folder that imports it back, and a
 * subfolder never imports its parent folder's own files (the parent uses the subfolder, not the other way round).
 * The src/ root holds only index.ts, the main entry (ROOT_FILES).
 */
const folder = (name) => `^src/${name}/`;

/** `from` may not import `to`. */
const forbid = (name, from, to, comment) => ({ name, comment, severity: "error", from: { path: from }, to: { path: to } });
/** `from` may not reach `to` through any chain of imports. */
const reaches = (name, from, to, comment) => ({ name, comment, severity: "error", from: { path: from }, to: { path: to, reachable: true } });

/** The only file allowed at the src/ root, the main entry: no layer rule can name a loose root file, so none is added. */
const ROOT_FILES = ["index"];
/** Any src/ root file not on the list. */
const NEW_ROOT_FILE = `^src/(?!(?:${ROOT_FILES.join("|")})\\.ts$)[^/]+$`;
const NEW_ROOT_FILE_COMMENT = "a new file at the src/ root: put it in its layer's folder (src/kernel, src/contract, …), not at the root next to the main entry";

/** The descriptor side of src/platforms: the registry, the kit, and each platform's descriptor, name and escaping. */
const PLATFORM_LEAF = "^src/platforms/(index\\.ts$|descriptors\\.ts$|surfaces\\.ts$|kit/|[^/]+/(platform|surface|escaping)\\.ts$)";
/** The renderer side: what a platform's folder holds besides its descriptor. */
const PLATFORM_RENDERER = "^src/platforms/(?!kit/)[^/]+/(?!(platform|surface|escaping)\\.ts$)";
/** The renderer side of any platform but $1, the platform of the rule's `from` (bots/$1/). */
const OTHER_PLATFORM_RENDERER = "^src/platforms/(?!kit/|$1/)[^/]+/(?!(platform|surface|escaping)\\.ts$)";

module.exports = {
  forbidden: [
    forbid("src-not-to-outside", "^src/", "^(bots|test|bench|bin)/", "src/ is the shared core: it never imports the bots, tests, benchmarks or CLI entry"),
    forbid("kernel-is-the-bottom", folder("kernel"), "^src/(?!kernel/)", "the kernel is the bottom: it imports nothing in src/ but itself"),
    forbid("contract-is-the-bottom", folder("contract"), "^src/(render|parse|bridge|client|gateway|web|cli|frameworks|protocol|record|runtime)/", "the contract imports nothing above it"),
    forbid("record-is-pure", folder("record"), "^src/(?!(record|contract|kernel|platforms)/)", "the question record is pure data and rules: it imports only itself, the contract, the kernel and the platform leaves (targets.ts reads the example targets), never a renderer, parser, protocol, client, server, CLI or runtime"),
    {
      name: "record-is-pure",
      comment: "the question record loads no package and no Node module itself (no zod, no I/O): its types and results come from src/contract",
      severity: "error",
      from: { path: folder("record") },
      to: { dependencyTypes: ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-bundled", "npm-no-pkg", "npm-unknown", "core"] },
    },
    forbid("runtime-not-below-render", "^src/(render|parse|contract|record|kernel)/", folder("runtime"), "the runtime (config, logs, files) sits above the pure layers: render, parse, contract, record and kernel never load it"),
    forbid("render-parse-are-pure", "^src/(render|parse)/", "^src/(bridge|client|gateway|web|cli|frameworks|protocol)/", "the renderer and parser are pure: no bridge, client, gateway, web or CLI"),
    forbid("bridge-below-transport", folder("bridge"), "^src/(gateway|web|cli|frameworks)/", "the bridge talks to the gateway through an injected client, never the server or the CLI"),
    forbid("client-not-to-server", folder("client"), "^src/(gateway|web|cli|bridge|frameworks)/", "the client and SDK never load the server, the web app, the CLI or the bridge"),
    forbid("protocol-is-shared", folder("protocol"), "^src/(gateway|client|web|cli|bridge|frameworks)/", "the wire types are shared by the gateway and its clients, so they import neither"),
    forbid("protocol-not-to-parse-render", folder("protocol"), "^src/(parse|render)/", "the wire types are data: what they share with the parser or the renderer lives below both, in src/contract"),
    forbid("gateway-web-not-to-cli", "^src/(gateway|web)/", "^src/(cli|bridge|frameworks)/", "the gateway and Control UI never import the CLI or the bridge"),
    forbid("gateway-not-to-web", folder("gateway"), folder("web"), "the gateway serves a web app it is handed; it never imports one"),
    forbid("gateway-not-to-client", folder("gateway"), folder("client"), "the server never loads the client; what both need (backoff) lives below both, in src/kernel"),
    forbid("store-is-below-the-gateway", "^src/gateway/store/", "^src/gateway/(?!store/)", "the store knows nothing of the gateway around it"),
    forbid("service-is-transport-free", "^src/gateway/service/", "^src/gateway/server/", "the question service knows no transport: the server (HTTP, WebSocket, dispatch) calls it, never the other way round"),
    forbid("store-kit-is-the-store-bottom", "^src/gateway/store/kit/", "^src/gateway/store/(?!kit/)", "the store kit (the contract types, errors, follow-ups, the shared SQL) is what every backend builds on: it loads no backend and not open-stores.ts"),
    forbid("store-backends-stay-apart", "^src/gateway/store/((?!kit/)[^/]+)/", "^src/gateway/store/(?!$1/|kit/)", "a store backend (memory, sqlite, postgres) imports only itself and the store kit, so open-stores.ts can load each alone"),
    forbid("coding-agents-are-clients", folder("coding-agents"), "^src/(gateway|web|cli|bridge|frameworks)/", "the coding-agent rules ask through the client, like any agent; they load no server, CLI, bridge or framework"),
    forbid("only-callers-load-coding-agents", "^src/(?!coding-agents/|cli/|frameworks/|index\\.ts$)", folder("coding-agents"), "only the CLI, the framework adapters and the main entry (requireApproval) use the coding-agent rules"),
    forbid("frameworks-are-leaves", "^src/(?!frameworks/)", folder("frameworks"), "nothing in src/ loads an agent framework adapter (they are optional subpath exports)"),
    forbid("platforms-are-pure", folder("platforms"), "^src/(bridge|client|gateway|web|cli|frameworks|protocol|coding-agents|runtime)/", "a platform's descriptor and renderers are pure: no bridge, client, gateway, web, CLI or protocol"),
    forbid("platform-descriptors-are-leaves", PLATFORM_LEAF, "^src/(?!platforms/)", "the registry and the descriptors are leaves every layer may read: they import nothing of src/ outside src/platforms"),
    forbid("descriptors-load-no-renderer", PLATFORM_LEAF, PLATFORM_RENDERER, "a descriptor (and the registry) never loads a renderer: the renderers sit above src/render, the descriptors below it"),
    forbid("registry-stays-light", "^src/platforms/index\\.ts$", "^src/platforms/(?!kit/)[^/]+/(?!surface\\.ts$)", "the registry of names holds only each platform's surface.ts: the Control UI bundles it (src/platforms/surfaces.ts); the descriptors are src/platforms/descriptors.ts"),
    forbid("core-reads-platforms-through-the-registry", "^src/(?!platforms/)", "^src/platforms/(?!kit/)[^/]+/", "outside src/platforms, the core (the bridge too) reads a platform only through the registry (src/platforms/index.ts, descriptors.ts) and src/platforms/kit"),
    forbid("platforms-stay-apart", "^src/platforms/([^/]+)/", "^src/platforms/(?!$1/|kit/)[^/]+/", "a platform's folder imports only itself and src/platforms/kit (shared, not a platform; it imports no platform)"),
    reaches("render-reaches-no-platform-renderer", folder("render"), PLATFORM_RENDERER, "the shared renderer sits below the platforms' renderers and re-exports none of them: each bot imports its own platform's folder"),
    reaches("bridge-reaches-no-platform-renderer", folder("bridge"), PLATFORM_RENDERER, "the bridge is platform-free: it renders through the SurfaceAdapter its bot hands it and reads platforms only through the descriptors, so no platform's payload or modal code is in its module graph"),
    forbid("bots-not-to-server-or-cli", "^bots/", "^src/(gateway|web|cli)/", "a bot is a client of the gateway: bridge, client, render, parse, contract"),
    forbid("bots-stay-in-their-folder", "^bots/([^/]+)/", "^bots/(?!$1/|kit/|shared\\.ts$)", "a platform's folder imports only itself, bots/kit (pacer, listener, signature) and bots/shared.ts"),
    forbid("bots-kit-is-generic", "^bots/kit/", "^bots/(?!kit/)", "bots/kit is the bots' workshop: it knows no platform and no bot wiring"),
    forbid("bots-import-only-their-platform", "^bots/([^/]+)/", "^src/platforms/(?!$1/|kit/)[^/]+/", "a bot imports its own platform's folder (bots/<p> → src/platforms/<p>/), never another platform's"),
    reaches("bots-load-only-their-platform", "^bots/([^/]+)/", OTHER_PLATFORM_RENDERER, "a bot's module graph holds no other platform's renderers (payload, modal, callback data), only the descriptors every layer reads through the registry"),
    {
      name: "no-folder-cycles",
      comment: "no folder imports a folder that (through others) imports it back",
      severity: "error",
      scope: "folder",
      // src/platforms is two layers by design, and src/record, src/contract and src/kernel read its leaves (see the
      // top): the platform rules, their own downward-only rules and no-module-cycles cover them.
      from: { pathNot: "^src/(platforms|record|contract|kernel)(/|$)" },
      to: { circular: true, pathNot: "^src/(platforms|record|contract|kernel)(/|$)" },
    },
    {
      // dependency-cruiser's folder graph counts a subfolder's modules as the parent folder's own (src/cli holds
      // src/cli/mcp), so the parent's imports of its subfolder never appear in it, and no-folder-cycles cannot see
      // a cycle between a folder and its subfolder (src/cli ↔ src/cli/mcp, src/gateway ↔ src/gateway/auth).
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
