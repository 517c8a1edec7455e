/** Every message the bridge says, in one place. */
export const TEXTS = {
  submitted: "Answer submitted.",
  skipped: "Skipped.",
  alreadyAnswered: "This question was already answered.",
  someoneElse: "This question is for someone else.",
  notValid: "This button is no longer valid.",
  notSubmitted: "Not submitted: the answer service is unreachable right now. Please try again in a moment.",
  ownWordsPrompt: "Reply with your own answer.",
  modalTitle: "Your answer",
  credential:
    "That looks like a password, key or token, so it was not recorded. Never send credentials here: use the secrets flow instead.",
  /** The credential could not be deleted (some platforms let a bot delete only its own messages): said privately where possible. */
  credentialNotDeleted:
    "That looks like a password, key or token, so it was not recorded. Your message is still visible in this chat: delete it now, and rotate that secret, since others may have seen it. Never send credentials here: use the secrets flow instead.",
  empty: "Please reply with a number, an option, or your own words.",
  /** Skip on a question that already expired but still takes a late answer. */
  lateSkip: "This question already expired, so there is nothing to skip. An answer still reaches the agent.",
} as const;
