import type { Surface } from "../../src/contract/result.ts";

/** A person on the platform, as the fake knows them. */
export interface Person {
  id: string;
  name: string;
}

/** A message a person typed, as the platform now shows it. */
export interface SentMessage {
  deleted(): boolean;
  /** The bot's reactions on it. */
  reactions(): string[];
  /** The platform delivers the same message to the bot again (a webhook retry, a replay). */
  redeliver(): Promise<void>;
}

/** One delivered prompt as the person sees it now. */
export interface PromptCopy {
  chat: string;
  ref: string;
  text: string;
  /** Button labels in order; empty once the copy became a summary. */
  buttons: string[];
}

/**
 * What a platform can do, where the suites' expectations differ (issue 27): declared by the harness, never a skipped
 * test. A scenario that needs what the platform lacks tests what it does instead (the copy stays as sent and a
 * summary reply follows it; a credential stays visible and the person is told to delete it; …).
 */
export interface PlatformCapabilities {
  /** The bot can edit a sent message. false: a copy stays as sent, and the bot replies to it with what it shows now. */
  edits: boolean;
  /** Chats of many people. false: every chat is one person's own (a direct message), named by their id. */
  groups: boolean;
  /** The bot may delete a person's message (a credential). false: it stays, and the person is told to delete it. */
  deletesMessages: boolean;
  /** The bot may delete its own messages (a reminder). false: they stay. */
  deletesOwnMessages: boolean;
  /**
   * The bot can mark a person's message (a reaction: the refusal mark on a stranger's message). false (Teams): no
   * mark; the stranger is still told nothing in public, and nothing is recorded.
   */
  marksMessages: boolean;
  /**
   * Native controls on a prompt (buttons, a list, a poll). false (e-mail): every prompt is numbered text (its answer
   * links open the web page), so a copy has no `buttons`; `press` replies with the option's number (Skip: `skip`) and
   * resolves to the bot's reply to that (`pressTold`).
   */
  buttons: boolean;
  /**
   * The bot tells a copy's chat when its question resolves (an edit, or a reply to the copy). false (e-mail):
   * resolution sends nothing and the copy stays as sent (its answer links say so, on the web); only a late answer gets
   * one message that says it was taken. `summaryOf` then checks the record's summary and that nothing followed the copy.
   */
  summaries: boolean;
  /**
   * Every answer is a reply to one of the bot's messages (e-mail: In-Reply-To/References name it). true: a message that
   * replies to none is no answer, not even the person's own in their own chat.
   */
  repliesOnly: boolean;
}

/** Telegram's, Discord's and Slack's: what the suites assumed before any platform lacked one. */
export const FULL_CAPABILITIES: PlatformCapabilities = {
  edits: true,
  groups: true,
  deletesMessages: true,
  deletesOwnMessages: true,
  marksMessages: true,
  buttons: true,
  summaries: true,
  repliesOnly: false,
};

/**
 * What pressing option `n` (1-based, labelled `label`) tells the presser: the toast where there are buttons; where
 * there are none, the confirmation of the typed reply that stands in for the press.
 */
export function pressTold(capabilities: PlatformCapabilities, label: string, n: number): string {
  return capabilities.buttons ? "Answer submitted." : `✅ Recorded: ${label} (option ${n})`;
}

export function capabilitiesOf(harness: { capabilities?: Partial<PlatformCapabilities> }): PlatformCapabilities {
  return { ...FULL_CAPABILITIES, ...harness.capabilities };
}

/**
 * What the scenario suite needs from a platform: its real bot, driven through its own fake server.
 * Each platform's test implements this and calls runBotScenarios.
 */
/**
 * The clock the gateway and the bot run on, where the harness hands them a virtual one (the in-memory platform): the
 * time-driven scenarios (expiry, reminders, escalation, late windows, back-offs) move it instead of waiting.
 */
export interface ScenarioClock {
  now(): number;
  advance(ms: number): Promise<void>;
}

export interface BotHarness {
  surface: Surface;
  /** The virtual clock of the gateway and the bot; absent: they run on real time. */
  clock?: ScenarioClock;
  /** What the platform cannot do (default: everything the suites test). */
  capabilities?: Partial<PlatformCapabilities>;
  /**
   * The copy as first sent, where the platform cannot edit (`copy` then shows the latest reply that updates it);
   * default `copy`.
   */
  sentCopy?(chat: string, ref: string): PromptCopy;
  /** Base URL of the real gateway the bot is connected to. */
  gatewayUrl(): string;
  /** A group chat / channel the bot serves, and a second one. */
  chat: string;
  otherChat: string;
  /** Allowed by the surface's allow-list; `stranger` is not. */
  person: Person;
  colleague: Person;
  stranger: Person;
  /** The current state of a delivered copy. */
  copy(chat: string, ref: string): PromptCopy;
  /** Presses button `index` of a copy (options, then Other…, then Skip); resolves to what the presser was told. */
  press(copy: PromptCopy, index: number, who: Person): Promise<string | undefined>;
  /** Presses a button with forged data: garbage, or a choice for some question id and index. */
  pressForged(copy: PromptCopy, forged: "garbage" | { questionId: string; optionIndex: number }, who: Person): Promise<string | undefined>;
  /** Presses Other… and gives own words the platform's way (a typed reply, or a modal). */
  answerOther(copy: PromptCopy, who: Person, text: string): Promise<void>;
  /** Presses Other…; resolves once the bot asked for the words (a ForceReply, or a modal), to a way to give them. */
  openOther(copy: PromptCopy, who: Person): Promise<(text: string) => Promise<void>>;
  /**
   * Types a message in a chat, optionally as a reply to (or in the thread of) a prompt. A chat that is a person's id
   * is the DM with that person (on every platform).
   */
  type(chat: string, who: Person, text: string, options?: { replyTo?: PromptCopy }): Promise<SentMessage>;
  /**
   * The platform will answer the bot's next prompt send only on `release()`: the prompt is already there for people
   * to answer (`posted`), but the bot does not know it yet.
   */
  holdNextPrompt(chat: string): { posted(): Promise<PromptCopy>; release(): void };
  /**
   * The bot's replies to a prompt (its reminders): a Telegram reply, a Discord message reference, a Slack thread
   * reply. `pings`: it could notify someone by name (a mention, a replied-user ping, a broadcast).
   */
  repliesTo(copy: PromptCopy): Array<PromptCopy & { deleted: boolean; pings: boolean }>;
  /** The bot's latest message in a chat that is not a prompt (a confirmation, a follow-up), to reply to. */
  latestReply(chat: string): PromptCopy;
  /** From now on the platform refuses to let the bot delete its own messages (false: it lets it again). */
  refuseDeletingOwn(refuse: boolean): void;
  /** From now on the bot may not delete people's messages (false: it may again). */
  forbidDeleting(forbid: boolean): void;
  /** Plain text as the platform's renderer makes it safe (the escaping every bot message must have). */
  platformText(text: string): string;
  /** Bot messages in a chat that are not prompts (confirmations, refusals), oldest first. */
  botReplies(chat: string): string[];
  /** Private notices (ephemeral messages) shown to one person, oldest first. */
  privateNotices(who: Person): string[];
  /** How many times the bot sent a prompt for this question. */
  promptSends(questionId: string): number;
  /** The next prompt send is refused with a rate limit (retry after `seconds`). */
  rateLimitNextSend(seconds: number): void;
  /** Stops the bot, waits for `whileDown` (things happen while no bot runs), and starts it again. */
  restartBot(whileDown?: () => Promise<unknown>): Promise<void>;
  restartGateway(): Promise<void>;
  close(): Promise<void>;
}
