// Bridges from the channels' own bookkeeping to the ops metrics, so the channels need not know
// Prometheus: the mail poller's events become the IMAP gauges.
import type { ImapConnectionState, ImapMetrics } from './metrics.ts';

/** The events the IMAP poller emits (src/channels/mail/mail-poller.ts). */
export interface PollerEvents {
  on(event: 'connected' | 'disconnected' | 'drained', listener: (...args: unknown[]) => void): unknown;
}

/** Follows the poller's connection state and successful drains; returns the current state. */
export function observeMailPoller(imap: ImapMetrics, poller: PollerEvents): () => ImapConnectionState {
  let state: ImapConnectionState = 'connecting';
  const set = (s: ImapConnectionState) => {
    state = s;
    imap.connectionState(s);
  };
  set('connecting');
  poller.on('connected', () => set('connected'));
  // the poller reconnects by itself after a back-off: until then it is disconnected
  poller.on('disconnected', () => set('disconnected'));
  poller.on('drained', () => imap.pollSucceeded());
  return () => state;
}
