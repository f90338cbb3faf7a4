# Perl's Net::FTP (libnet, explicit FTPS through starttls): uploads every file given, one session,
# binary mode, as docs/ftp.md's recipe; run by test/ftp/ftps-loops.test.ts.
# usage: perl perl-loop.pl PORT USER PASSWORD TLS_VERSION(1.2|1.3) FILE...
# prints one line per file: "<code> <reply>" as the server answered its STOR
use strict;
use warnings;
use Net::FTP;
use File::Basename;

my ($port, $user, $password, $tls, @files) = @ARGV;
my $version = $tls eq '1.3' ? 'TLSv1_3' : 'TLSv1_2';
my $ftp = Net::FTP->new('127.0.0.1', Port => $port, Passive => 1, Timeout => 20,
  SSL_verify_mode => 0, SSL_version => $version) or die "connect: $@";
$ftp->starttls() or die 'starttls: ' . $ftp->message;
$ftp->login($user, $password) or die 'login: ' . $ftp->message;
$ftp->prot('P') or die 'prot: ' . $ftp->message;
$ftp->binary() or die 'binary: ' . $ftp->message;
for my $file (@files) {
  my $ok = $ftp->put($file, basename($file));
  my $msg = $ftp->message;
  $msg =~ s/\s+$//;
  print(($ok ? 'OK ' : 'FAIL ') . $ftp->code . " $msg\n");
}
$ftp->quit();
