// --pin (issue 46): a store that is not the database is, in production, not on the primary's
// machine, but s3rver and the client share this machine's cores with the service and PostgreSQL.
// Pinned, the servers (the service, its PostgreSQL and Redis, the lean reference, vsftpd) run on
// CPU 0 and what stands outside them (the client, the S3 server) on CPU 1, so that every store is
// given the same primary: one core. Processes started while the bench itself is on CPU 0 inherit
// it (PostgreSQL's backends from their postmaster, a service's threads from its main thread).
import { execFileSync } from 'node:child_process';
import os from 'node:os';

const SERVERS = 0;
const OUTSIDE = 1;

function pin(pid: number, cpu: number): void {
  // -a: every thread the process has now; threads and children it starts later inherit it
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

export interface Pinning {
  /** what the run's figures were measured on, for its report */
  what: string;
  /** once every server is started: the bench (the client) and `outside` processes to CPU 1 */
  serversStarted(outside: (number | undefined)[]): void;
}

/** Call before starting any server. With `on`, needs --own-postgres (the machine's PostgreSQL cannot be pinned). */
export function cpuPinning(on: boolean, ownPostgres: boolean): Pinning {
  if (!on) return { what: 'not pinned (every process on every core)', serversStarted: () => {} };
  if (!ownPostgres) throw new Error("--pin needs --own-postgres: the machine's PostgreSQL is not this run's to pin");
  if (os.availableParallelism() < 2) throw new Error('--pin needs two cores');
  pin(process.pid, SERVERS);
  return {
    what: 'pinned: service, PostgreSQL, Redis and the references on CPU 0; client and S3 server on CPU 1',
    serversStarted: (outside) => {
      for (const pid of [process.pid, ...outside]) if (pid) pin(pid, OUTSIDE);
    },
  };
}
