// An intake that cannot stage anything (as with Redis down), for the FTP and SFTP tests of what a
// client hears then: an error instead of a confirmation, and temporary uploads kept for a retry.
import type { IntakeReceiver } from '../../src/intake/intake-port.ts';

/** The service's intake, except that nothing can be staged (Redis down); listings fail too while `listingFails()`. */
export function failingIntake(intake: IntakeReceiver, listingFails: () => boolean = () => false): IntakeReceiver {
  return {
    receive: async () => {
      throw new Error('enqueue failed: Redis unavailable');
    },
    takeUpload: (name, body, max) => intake.takeUpload(name, body, max),
    receiveUpload: async () => {
      throw new Error('enqueue failed: Redis unavailable');
    },
    recordFailure: (f, r) => intake.recordFailure(f, r),
    recent: async (s, n) => {
      if (listingFails()) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      return intake.recent(s, n);
    },
  };
}
