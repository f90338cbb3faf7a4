// At most N replies per sender per sliding hour, so a misconfigured system that sends us
// hundreds of bad files gets a few answers, not hundreds. Pure: the send times come from the
// database (shared by every poller), the decision is made here.

export const REPLY_WINDOW_MS = 3_600_000;

/** The key replies are counted under: the address, lower-cased. */
export const senderKey = (address: string) => address.trim().toLowerCase();

/** Whether one more reply fits, given the times of the replies sent to this sender recently. */
export function replyAllowed(sentAt: Date[], now: Date, limitPerHour: number): boolean {
  const since = now.getTime() - REPLY_WINDOW_MS;
  return sentAt.filter((t) => t.getTime() > since).length < limitPerHour;
}

/** When the next reply to this sender would fit again (for logs), or now if it fits. */
export function nextReplyAt(sentAt: Date[], now: Date, limitPerHour: number): Date {
  if (replyAllowed(sentAt, now, limitPerHour) || limitPerHour <= 0) return now;
  const recent = sentAt
    .map((t) => t.getTime())
    .filter((t) => t > now.getTime() - REPLY_WINDOW_MS)
    .sort((a, b) => b - a);
  return new Date(recent[limitPerHour - 1] + REPLY_WINDOW_MS);
}
