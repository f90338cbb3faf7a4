// The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat),
// to see which threads run at which priority.
import fs from 'node:fs';

export const threadNices = (): { tid: number; nice: number }[] =>
  fs.readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [{ tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) }];
    } catch {
      return []; // the thread ended
    }
  });
