// When an FTP or SFTP session is idle (src/channels/transfer/idle-timer.ts, shared by both): after
// the idle time-out without activity, at most a minute before login, never while a transfer runs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdleTimer, LOGIN_IDLE_MS, type IdleState } from '../../src/channels/transfer/idle-timer.ts';

afterEach(() => {
  vi.useRealTimers();
});

function session(idleMs: number, state: IdleState) {
  let idled = 0;
  const timer = new IdleTimer(
    idleMs,
    () => state,
    () => idled++,
  );
  timer.arm();
  return { timer, idled: () => idled };
}

describe('the transfer idle timer', () => {
  it('closes a logged-in session after its time-out without activity; activity moves the deadline', () => {
    vi.useFakeTimers();
    const s = session(300_000, { loggedIn: true, closed: false });
    vi.advanceTimersByTime(200_000);
    s.timer.touch();
    vi.advanceTimersByTime(200_000);
    expect(s.idled()).toBe(0);
    vi.advanceTimersByTime(100_001);
    expect(s.idled()).toBe(1);
  });

  it('gives a session that has not logged in at most a minute, and a shorter time-out its own', () => {
    vi.useFakeTimers();
    const before = session(300_000, { loggedIn: false, closed: false });
    vi.advanceTimersByTime(LOGIN_IDLE_MS + 1);
    expect(before.idled()).toBe(1);
    const short = session(5000, { loggedIn: false, closed: false });
    vi.advanceTimersByTime(5001);
    expect(short.idled()).toBe(1);
  });

  it('never closes a session while it is busy with a transfer, nor one already closed', () => {
    vi.useFakeTimers();
    const state: IdleState = { loggedIn: true, closed: false, busy: true };
    const busy = session(10_000, state);
    vi.advanceTimersByTime(60_000);
    expect(busy.idled()).toBe(0);
    state.busy = false;
    vi.advanceTimersByTime(10_001);
    expect(busy.idled()).toBe(1);
    const closed = session(10_000, { loggedIn: true, closed: true });
    vi.advanceTimersByTime(60_000);
    expect(closed.idled()).toBe(0);
  });
});
