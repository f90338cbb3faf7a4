// The process's SFTP counters: the FTP channel's kind of bookkeeping (the same counter names),
// reported as the sftp_* series by src/ops/metrics.ts.
import { TransferMetrics } from '../transfer/transfer-metrics.ts';

export const sftpMetrics = new TransferMetrics('sftp');
