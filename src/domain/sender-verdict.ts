// Who sent a message, as far as anyone checked: our own SMTP receiver's checks (SPF, DKIM, DMARC,
// ARC through mailauth), or the mailbox server's Authentication-Results header when its
// authserv-id is the one the operator trusts. Sender policy and replies decide on this alone.

export type AuthResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror' | 'policy';

export interface SenderVerdict {
  /** where the verdict came from: our receiver's checks, the mailbox's trusted header, or nobody */
  source: 'smtp' | 'imap-header' | 'none';
  /** the header From address, lower-cased ('' when the message has none) */
  from: string;
  spf: AuthResult;
  /** the domain SPF was checked for (the envelope sender's, or the HELO name's) */
  spfDomain: string;
  /** domains whose DKIM signatures verified */
  dkimPassDomains: string[];
  dmarc: AuthResult;
  arc: AuthResult;
  /** the From domain is authenticated: DMARC pass, or an SPF or DKIM pass aligned with it */
  authenticated: boolean;
}

/** The verdict of a message nobody checked: never authenticated. */
export const uncheckedVerdict = (from: string): SenderVerdict => ({
  source: 'none',
  from: from.toLowerCase(),
  spf: 'none',
  spfDomain: '',
  dkimPassDomains: [],
  dmarc: 'none',
  arc: 'none',
  authenticated: false,
});
