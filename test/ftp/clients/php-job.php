<?php
// PHP's ftp_ssl_connect (explicit FTPS): the recipe of docs/ftp.md, run by test/ftp/ftps-interop.test.ts.
// usage: php php-job.php PORT USER PASSWORD GOOD_LOCAL GOOD_REMOTE TEMP_LOCAL TEMP_REMOTE FINAL_REMOTE JUNK_LOCAL JUNK_REMOTE
[, $port, $user, $password, $goodLocal, $goodRemote, $tempLocal, $tempRemote, $finalRemote, $junkLocal, $junkRemote] = $argv;
$ftp = ftp_ssl_connect('127.0.0.1', (int) $port, 20) or exit(2);
ftp_login($ftp, $user, $password) or exit(3); // AUTH TLS, then PBSZ 0 and PROT P
ftp_pasv($ftp, true) or exit(4);
ftp_put($ftp, $goodRemote, $goodLocal, FTP_BINARY) or exit(5);
ftp_put($ftp, $tempRemote, $tempLocal, FTP_BINARY) or exit(6);
ftp_rename($ftp, $tempRemote, $finalRemote) or exit(7);
ftp_put($ftp, $junkRemote, $junkLocal, FTP_BINARY) or exit(8);
echo "== LIST\n", implode("\n", ftp_rawlist($ftp, '.') ?: exit(9)), "\n";
echo "== NLST\n", implode("\n", ftp_nlist($ftp, '.') ?: exit(10)), "\n";
$error = tempnam(sys_get_temp_dir(), 'ftp-error');
ftp_get($ftp, $error, "$junkRemote.error.txt", FTP_BINARY) or exit(11);
echo "== ERROR\n", file_get_contents($error);
unlink($error);
ftp_close($ftp);
