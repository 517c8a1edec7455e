/**
 * The bot's calls to the Bot Connector, made the SDK's way: `continueConversation` with a stored conversation
 * reference gives a turn whose ConnectorClient carries the bot's token (from Entra, or the sidecar), and that client
 * posts, replies, updates (`updateActivity`) and deletes activities at the conversation's service URL. A 429 waits for
 * its Retry-After and is tried again a few times; a conversation Teams will never let the bot into is a
 * PermanentSendError.
 */
import { CloudAdapter, type ConnectorClient, HttpError, type OutboundUrlPolicy } from "@microsoft/agents-hosting";
import { Activity, type ConversationReference } from "@microsoft/agents-activity";
import { PermanentSendError } from "../../src/bridge/index.ts";
import { createTeamsPacer, type TeamsPace } from "./pacer.ts";
import type { TeamsReference } from "./references.ts";
import { originOf } from "./trust.ts";

/** The Bot Connector's answers for a conversation the bot cannot post in: removed, blocked, never installed, gone. */
const PERMANENT_STATUS = new Set([400, 401, 403, 404]);
const RATE_LIMIT_TRIES = 4;
const RETRY_AFTER_MAX_MS = 60_000;
const RETRY_AFTER_DEFAULT_MS = 1_000;

/** An activity the bot sends: a message with text and, for a prompt, its card. */
export type OutgoingActivity = Partial<Activity> & { type: "message" };

export interface TeamsConnector {
  /**
   * Posts a new message in the conversation: in a channel a new post, or with `threadRoot` a message in that post's
   * thread (the conversation id `<channel>;messageid=<root>`); resolves to its activity id.
   */
  post(reference: TeamsReference, activity: OutgoingActivity, threadRoot?: string): Promise<string>;
  /** Replies to an activity (in a channel, in its thread); resolves to the reply's id. */
  reply(reference: TeamsReference, toActivityId: string, activity: OutgoingActivity): Promise<string>;
  update(reference: TeamsReference, activityId: string, activity: OutgoingActivity): Promise<void>;
  delete(reference: TeamsReference, activityId: string): Promise<void>;
}

export function httpStatusOf(error: unknown): number | undefined {
  return error instanceof HttpError ? error.status : typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : undefined;
}

function retryAfterMs(error: unknown): number {
  const header = error instanceof HttpError ? (error.response?.headers as Headers | undefined)?.get?.("retry-after") : undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(RETRY_AFTER_MAX_MS, seconds * 1000) : RETRY_AFTER_DEFAULT_MS;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function toConversationReference(reference: TeamsReference): ConversationReference {
  return {
    channelId: reference.channelId,
    serviceUrl: reference.serviceUrl,
    conversation: { ...reference.conversation, isGroup: reference.conversation.isGroup ?? false } as ConversationReference["conversation"],
    agent: reference.bot as ConversationReference["agent"],
    ...(reference.user ? { user: reference.user as ConversationReference["user"] } : {}),
  };
}

export function createTeamsConnector(cloud: CloudAdapter, appId: string, pace?: TeamsPace, serviceUrls?: OutboundUrlPolicy): TeamsConnector {
  const pacer = createTeamsPacer(pace);
  /** Runs `call` in a proactive turn with the conversation's ConnectorClient; a 429 waits and tries again. */
  async function withClient<T>(reference: TeamsReference, call: (client: ConnectorClient, outgoing: (a: OutgoingActivity) => Activity) => Promise<T>): Promise<T> {
    // The SDK refuses it too (before any token is fetched); this says why, and no retry can change it.
    if (serviceUrls && !serviceUrls.isAllowed(reference.serviceUrl)) {
      throw new PermanentSendError(`teams: the conversation's service URL ${originOf(reference.serviceUrl) ?? reference.serviceUrl} is not on TEAMS_SERVICE_URL_HOSTS: the bot sends nothing there`);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        let result: { value: T } | undefined;
        // The SDK hands an error thrown in the turn to onTurnError (which only logs): it is caught here instead.
        let failure: { error: unknown } | undefined;
        await cloud.continueConversation(appId, toConversationReference(reference), async (context) => {
          const client = context.turnState.get<ConnectorClient>(cloud.ConnectorClientKey);
          const outgoing = (a: OutgoingActivity) => {
            const activity = Activity.fromObject({ ...a, channelId: reference.channelId, serviceUrl: reference.serviceUrl, conversation: reference.conversation, from: reference.bot, ...(reference.user ? { recipient: reference.user } : {}) });
            return activity;
          };
          try {
            result = { value: await pacer.run(reference.conversation.id, () => call(client, outgoing)) };
          } catch (error) {
            failure = { error };
          }
        });
        if (failure) throw failure.error;
        if (!result) throw new Error("the proactive turn did not run");
        return result.value;
      } catch (error) {
        const status = httpStatusOf(error);
        if (status === 429 && attempt < RATE_LIMIT_TRIES) {
          await sleep(retryAfterMs(error));
          continue;
        }
        if (status !== undefined && PERMANENT_STATUS.has(status)) {
          throw new PermanentSendError(`the Bot Connector refused the conversation (HTTP ${status}): the app may have been removed from it`, { cause: error });
        }
        throw error;
      }
    }
  }

  return {
    post: (reference, activity, threadRoot) =>
      withClient(reference, async (client, outgoing) => {
        const conversationId = threadRoot ? `${reference.conversation.id};messageid=${threadRoot}` : reference.conversation.id;
        const sent = await client.sendToConversation(conversationId, outgoing(activity));
        if (!sent?.id) throw new Error("the Bot Connector gave no activity id");
        return sent.id;
      }),
    reply: (reference, toActivityId, activity) =>
      withClient(reference, async (client, outgoing) => {
        const sent = await client.replyToActivity(reference.conversation.id, toActivityId, outgoing({ ...activity, replyToId: toActivityId }));
        if (!sent?.id) throw new Error("the Bot Connector gave no activity id");
        return sent.id;
      }),
    update: (reference, activityId, activity) =>
      withClient(reference, async (client, outgoing) => {
        await client.updateActivity(reference.conversation.id, activityId, outgoing({ ...activity, id: activityId }));
      }),
    delete: (reference, activityId) =>
      withClient(reference, async (client) => {
        await client.deleteActivity(reference.conversation.id, activityId);
      }),
  };
}
