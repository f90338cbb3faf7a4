// Which account a message is for, from its recipient headers. Delivered-To and X-Original-To
// carry the address the MTA delivered this copy to, so they come first; then To and Cc.
// Pure apart from the injected lookup.
import addressparser from 'nodemailer/lib/addressparser';
import type { Scope } from '../../domain/scope.ts';
import { decodeEncodedWords } from './mime-names.ts';

/** Header names in routing priority order. */
const ROUTING_HEADERS = ['delivered-to', 'x-original-to', 'to', 'cc'] as const;

type Parsed = { name?: string; address?: string; group?: Parsed[] };

function flatten(list: Parsed[]): string[] {
  return list.flatMap((a) => (a.group ? flatten(a.group) : a.address ? [a.address] : []));
}

/** Addresses found in a header value (groups flattened, display names dropped), lower-cased. */
export function addressesIn(value: string): string[] {
  const parsed = addressparser(decodeEncodedWords(value)) as Parsed[];
  return flatten(parsed)
    .map((a) => a.trim().replace(/^<|>$/g, '').toLowerCase())
    .filter((a) => /^[^@\s]+@[^@\s]+$/.test(a));
}

/**
 * Recipient addresses in routing order, without duplicates. `header(name)` returns every
 * occurrence of a header, topmost first (the newest Delivered-To is the top one).
 */
export function recipientCandidates(header: (name: string) => string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const name of ROUTING_HEADERS) {
    for (const value of header(name)) {
      for (const address of addressesIn(value)) {
        if (!seen.has(address)) {
          seen.add(address);
          out.push(address);
        }
      }
    }
  }
  return out;
}

export type Route = { scope: Scope; address: string } | { scope: undefined; reason: string };

/** The first candidate that names an account's import address wins. */
export async function routeByRecipient(candidates: string[], lookup: (address: string) => Promise<Scope | undefined>): Promise<Route> {
  for (const address of candidates) {
    const scope = await lookup(address);
    if (scope) return { scope, address };
  }
  const shown = candidates.length ? candidates.slice(0, 5).join(', ') : 'none';
  return { scope: undefined, reason: `No account has the import address this message was sent to (recipients: ${shown})` };
}
