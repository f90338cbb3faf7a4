// Who is asking: an account in one mode. Every repository query takes a Scope, so live and
// test data, and different accounts, can never meet.
export type Mode = 'live' | 'test';

export interface Scope {
  readonly accountId: string;
  readonly mode: Mode;
}
