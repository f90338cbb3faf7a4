// A SenderVerdict in words, for the API's import records and (through the dashboard's own words
// for the lead) for people. The checks' names (SPF, DKIM, DMARC, ARC) are the same in every
// language; only the lead and the checker are translated. Pure.
import type { SenderVerdict } from './sender-verdict.ts';

type VerdictLead = 'authenticated' | 'not_authenticated' | 'not_checked';

export interface VerdictSummary {
  lead: VerdictLead;
  /** who checked: our SMTP receiver, or the mailbox server's header */
  by: SenderVerdict['source'];
  /** "DMARC pass, SPF pass (supplier.example), DKIM pass (supplier.example)"; '' when nothing was checked */
  checks: string;
}

export function summariseVerdict(v: SenderVerdict): VerdictSummary {
  if (v.source === 'none') return { lead: 'not_checked', by: 'none', checks: '' };
  const checks = [
    `DMARC ${v.dmarc}`,
    `SPF ${v.spf}${v.spfDomain ? ` (${v.spfDomain})` : ''}`,
    v.dkimPassDomains.length ? `DKIM pass (${v.dkimPassDomains.join(', ')})` : 'DKIM none',
    ...(v.arc !== 'none' ? [`ARC ${v.arc}`] : []),
  ].join(', ');
  return { lead: v.authenticated ? 'authenticated' : 'not_authenticated', by: v.source, checks };
}

const LEAD_EN: Record<VerdictLead, string> = {
  authenticated: 'Sender authenticated',
  not_authenticated: 'Sender not authenticated',
  not_checked: 'Sender not checked',
};
const BY_EN: Record<SenderVerdict['source'], string> = {
  smtp: 'checked on receipt',
  'imap-header': "checked by the mailbox's server",
  none: 'no trusted Authentication-Results header',
};

/** "Sender authenticated (From a@b.example): DMARC pass, SPF pass (b.example), DKIM none; checked on receipt" */
export function verdictInWords(v: SenderVerdict): string {
  const s = summariseVerdict(v);
  const from = v.from ? ` (From ${v.from})` : '';
  return s.checks ? `${LEAD_EN[s.lead]}${from}: ${s.checks}; ${BY_EN[s.by]}` : `${LEAD_EN[s.lead]}${from}: ${BY_EN[s.by]}`;
}
