// The memory a process tree holds, each physical page once. Summing the processes' RSS counts a
// page every time it is mapped: `npm start`'s own node and the service's node share the node
// binary's code (about 35 MB), so the sum overstates the tree by that much. This reads which
// physical frame backs each resident page (/proc/PID/pagemap, frame numbers need root; Linux's
// pagemap.rst) and counts the distinct ones, which is what the tree takes from the machine.
import fs from 'node:fs';

const PAGE = 4096;
const PRESENT = 1n << 63n;
const PFN = (1n << 55n) - 1n;

/** Distinct resident physical pages of `pids`, in kB; undefined when frame numbers cannot be read (not root). */
export function residentKbOnce(pids: number[]): number | undefined {
  const frames = new Set<bigint>();
  for (const pid of pids) {
    let smaps: string;
    let fd: number;
    try {
      smaps = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
      fd = fs.openSync(`/proc/${pid}/pagemap`, 'r');
    } catch {
      continue; // gone
    }
    try {
      let range: [number, number] | undefined;
      for (const line of smaps.split('\n')) {
        const head = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
        if (head) range = [parseInt(head[1], 16), parseInt(head[2], 16)];
        else if (range && line.startsWith('Rss:') && !/^Rss:\s+0 kB/.test(line)) {
          const pages = (range[1] - range[0]) / PAGE;
          const buf = Buffer.alloc(pages * 8);
          fs.readSync(fd, buf, 0, buf.length, (range[0] / PAGE) * 8);
          for (let i = 0; i < pages; i++) {
            const entry = buf.readBigUInt64LE(i * 8);
            if (!(entry & PRESENT)) continue;
            const pfn = entry & PFN;
            if (pfn === 0n) return undefined; // frame numbers hidden: not root
            frames.add(pfn);
          }
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  return (frames.size * PAGE) / 1024;
}
