// The matching corpus's verdicts (bench/matching-corpus.ts): each upload's outcome against the
// invoice it belongs to, and the table of them by channel and kind of name.
import type { CorpusFile } from './corpus-expected.ts';

export type Channel = 'http' | 'ftp';
export type Case = 'meaningless' | 'conflict';
export interface Account {
  key: string;
  ftpUsername: string;
  invoiceOf: Map<string, string>;
  numberOf: Map<string, string>;
}
export interface Upload {
  file: CorpusFile;
  channel: Channel;
  case: Case;
  acct: Account;
  name: string;
  nameInvoice?: string;
  id?: string;
  record?: any;
}

type Verdict = 'right' | 'wrong' | 'refused' | 'waiting' | 'unrefused';
const verdict = (u: Upload): Verdict => {
  const r = u.record;
  if (!r || r.status === 'received' || r.status === 'waiting') return 'waiting';
  if (r.status !== 'attached') return 'refused';
  const own = u.file.expected ? u.acct.invoiceOf.get(u.file.expected) : undefined;
  if (u.case === 'meaningless') return r.invoice === own && own ? 'right' : 'wrong';
  // conflict: the name is another invoice's exact number or id
  if (own) return r.invoice === own ? 'unrefused' : 'wrong'; // name and XML disagree: refused is expected
  // no readable invoice number inside: the name is the only evidence, unless the file is no PDF at all
  return r.invoice === u.nameInvoice && u.file.attachable ? 'right' : 'wrong';
};

/** Prints the table of verdicts; returns the wrong and unrefused uploads, those not attached although they should be, and the count of wrong ones. */
export function tallyVerdicts(
  uploads: Upload[],
  channels: Channel[],
  otherTotal: (f: CorpusFile) => boolean,
): { wrong: string[]; missed: string[]; wrongCount: number } {
  const wrong: string[] = [];
  const missed: string[] = [];
  let wrongCount = 0;
  for (const channel of channels) {
    for (const c of ['meaningless', 'conflict'] as Case[]) {
      const rows = uploads.filter((u) => u.channel === channel && u.case === c);
      const count: Record<Verdict, number> = { right: 0, wrong: 0, refused: 0, waiting: 0, unrefused: 0 };
      for (const u of rows) {
        const v = verdict(u);
        count[v]++;
        if (v === 'wrong' || v === 'unrefused') {
          const to = u.record.invoice as string;
          wrong.push(
            `  ${v === 'wrong' ? 'WRONG    ' : 'unrefused'} ${channel} ${c} "${u.name}" (${u.file.file}, XML number ${u.file.expected ?? 'none'}) -> ${u.acct.numberOf.get(to) ?? to} by ${u.record.matchedBy}`,
          );
        }
      }
      // meaningless names: a readable number that did not attach; conflicts: a file without one that did not attach by its name
      const shouldHave = (x: Upload) =>
        x.case === 'meaningless'
          ? Boolean(x.file.expected && x.acct.invoiceOf.has(x.file.expected)) && !otherTotal(x.file)
          : !x.file.expected && x.file.attachable;
      for (const u of rows.filter((x) => shouldHave(x) && x.record?.status !== 'attached')) {
        missed.push(
          `  ${channel} ${c} "${u.name}" (${u.file.file}, XML number ${u.file.expected ?? 'none'}, ${u.file.kind}): ${u.record?.status ?? 'no record'}, ${String(u.record?.reason ?? '').slice(0, 140)}`,
        );
      }
      wrongCount += count.wrong;
      // files whose right outcome is not being attached: no readable number (meaningless names), name and XML disagreeing (conflict)
      const notToAttach = rows.filter((u) =>
        c === 'meaningless'
          ? !(u.file.expected && u.acct.invoiceOf.has(u.file.expected)) || otherTotal(u.file)
          : Boolean(u.file.expected && u.acct.invoiceOf.has(u.file.expected)) || !u.file.attachable,
      ).length;
      const unref = c === 'conflict' ? String(count.unrefused) : '-';
      console.log(
        `${channel.padEnd(8)} ${c.padEnd(12)} ${String(rows.length).padStart(6)} ${String(count.right).padStart(6)} ${String(count.wrong).padStart(6)} ${String(count.refused).padStart(8)} ${String(count.waiting).padStart(8)} ${unref.padStart(10)} ${String(notToAttach).padStart(15)}`,
      );
      // which evidence attached them (docs/matching.md): the kinds the corpus exercises
      const by = new Map<string, number>();
      for (const u of rows) if (u.record?.status === 'attached') by.set(u.record.matchedBy, (by.get(u.record.matchedBy) ?? 0) + 1);
      if (by.size)
        console.log(
          `${' '.repeat(22)}attached by: ${[...by]
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}`,
        );
    }
  }
  return { wrong, missed, wrongCount };
}
