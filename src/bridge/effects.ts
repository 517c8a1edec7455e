import type { ModalRequest } from "../render/index.ts";

/**
 * A message to send in answer to the event: in the chat, or privately where the platform can (`private`). Its text is
 * already the platform's safe text.
 */
export interface ReplyEffect {
  reply: string;
  /** For the person alone: an ephemeral message where the platform has them. */
  private?: boolean;
  /** In answer to the person's own message (a reply to it, its thread), when there is one and it was not deleted. */
  replyTo?: boolean;
  /**
   * The question the reply is about. A bot that sends the reply hands its message id to `bridge.sent`, so that a
   * reply to that message (a follow-up asking for the rest) counts as a reply to the question.
   */
  questionId?: string;
}

/**
 * One thing a bot does after an event. A response is a list of them, in the order they are done (`applyEffects`):
 * the toast first, then the mark, the deletion, the Other… request or modal, and the reply.
 */
export type BridgeEffect =
  /** The short answer to a button press (a callback answer where the platform has one). */
  | { toast: string }
  /** A mark on the person's message: someone who may not answer, in a group, is never answered in public. */
  | { react: "refused" }
  /**
   * Delete the person's message (it held a credential), then do `ifDeleted`, or `otherwise` when the platform
   * refused (the message is still visible). Where there is no message to delete (a press, a modal), `ifDeleted`.
   */
  | { delete: true; ifDeleted?: BridgeEffect; otherwise?: BridgeEffect }
  /** Other… on a platform without modals: ask for the person's own words (a forced reply). */
  | { askOwnWords: string; questionId: string }
  /** Other… on a platform with modals: open one with a single text field. */
  | { openModal: ModalRequest }
  | ReplyEffect;

/** What the platform does after an event, in the order `applyEffects` gives. Every text is sent as it is. */
export type BridgeResponse = readonly BridgeEffect[];

/**
 * The few things a platform does in answer to one event; made for that event (it knows the chat, the person, the
 * message or interaction). An operation the platform cannot do there is left out.
 */
export interface PlatformOps {
  /** Answers the press with a toast. Without it a toast is said privately, unless a reply in the response says more. */
  toast?(text: string): Promise<void>;
  /** Marks the person's message. Without it, no mark. */
  react?(mark: "refused"): Promise<void>;
  /** Deletes the person's message; false when the platform refused. Without it (no message), as if deleted. */
  deleteMessage?(): Promise<boolean>;
  /** Sends a reply (see `ReplyEffect`; a platform without private messages decides where a private one goes). */
  reply(reply: ReplyEffect): Promise<void>;
  /** Asks the person for their own words (a message they reply to). */
  askOwnWords?(text: string, questionId: string): Promise<void>;
  /** Opens the Other… modal. */
  openModal?(request: ModalRequest): Promise<void>;
}

const repliesIn = (effect: BridgeEffect): boolean =>
  "reply" in effect || ("delete" in effect && [effect.ifDeleted, effect.otherwise].some((e) => e !== undefined && repliesIn(e)));

/**
 * Does what a response says, one effect after another, through the platform's operations. A failed operation stops
 * the rest (each operation logs and swallows the failures it can live with, such as a mark that did not stick).
 */
export async function applyEffects(effects: BridgeResponse, ops: PlatformOps): Promise<void> {
  const replied = effects.some(repliesIn);
  async function apply(effect: BridgeEffect): Promise<void> {
    if ("toast" in effect) {
      if (ops.toast) await ops.toast(effect.toast);
      else if (!replied) await ops.reply({ reply: effect.toast, private: true });
    } else if ("react" in effect) await ops.react?.(effect.react);
    else if ("delete" in effect) {
      const deleted = ops.deleteMessage ? await ops.deleteMessage() : true;
      const next = deleted ? effect.ifDeleted : effect.otherwise;
      if (next) await apply(next);
    } else if ("askOwnWords" in effect) await ops.askOwnWords?.(effect.askOwnWords, effect.questionId);
    else if ("openModal" in effect) await ops.openModal?.(effect.openModal);
    else await ops.reply(effect);
  }
  for (const effect of effects) await apply(effect);
}

/** The same effects, every text passed through `toPlatformText`. */
export function effectsToPlatformText(effects: BridgeResponse, toPlatformText: (text: string) => string): BridgeResponse {
  const defuse = (effect: BridgeEffect): BridgeEffect => {
    if ("toast" in effect) return { toast: toPlatformText(effect.toast) };
    if ("delete" in effect) {
      return { delete: true, ...(effect.ifDeleted ? { ifDeleted: defuse(effect.ifDeleted) } : {}), ...(effect.otherwise ? { otherwise: defuse(effect.otherwise) } : {}) };
    }
    if ("askOwnWords" in effect) return { ...effect, askOwnWords: toPlatformText(effect.askOwnWords) };
    if ("reply" in effect) return { ...effect, reply: toPlatformText(effect.reply) };
    return effect;
  };
  return effects.map(defuse);
}
