import type { Log } from "../shared.ts";
import { mattermostStatus } from "./client.ts";

/**
 * What a bot account with Mattermost's default role may not do, though the bot would: post ephemeral messages
 * (POST /posts/ephemeral takes `create_post_ephemeral`, which only the System Admin role has) and delete another
 * person's post (DELETE /posts/{id} takes `delete_others_posts`). The server answers 403 to both.
 */
export type MattermostPermission = "create_post_ephemeral" | "delete_others_posts";

/** What the bot does without the permission, and what would give it: said once per bot, at warn. */
const WITHOUT: Record<MattermostPermission, string> = {
  create_post_ephemeral:
    "the bot may not post ephemeral messages, so notes for one person go as replies in their message's thread (public in a channel): give the bot the create_post_ephemeral permission (the System Admin role has it) to keep them private",
  delete_others_posts:
    "the bot may not delete others' posts, so a message holding a credential stays and its author is told to delete it and rotate the secret: give the bot the delete_others_posts permission (the System Admin role has it) to delete it",
};

/** The permissions the server refused the bot, each warned about once (a bot runs once per process). */
export function createMattermostPermissions(log: Log) {
  const warned = new Set<MattermostPermission>();
  return {
    /** Whether `error` is the server refusing a call for want of `permission` (a 403); the first one is logged. */
    refused(permission: MattermostPermission, error: unknown): boolean {
      if (mattermostStatus(error) !== 403) return false;
      if (!warned.has(permission)) {
        warned.add(permission);
        log(WITHOUT[permission], error);
      }
      return true;
    },
  };
}

export type MattermostPermissions = ReturnType<typeof createMattermostPermissions>;
