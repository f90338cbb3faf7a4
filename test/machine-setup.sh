#!/usr/bin/env bash
# `npm test`'s first step on a fresh machine of our kind (Debian 12, node-svc): start Redis and
# PostgreSQL when they are down, and install the Debian packages the suites drive as real
# processes when they are missing. Without root it installs nothing and stops at once, naming the
# one command that would.
set -euo pipefail

if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
fi

missing=()
command -v dovecot >/dev/null 2>&1 || missing+=(dovecot-imapd)
command -v curl >/dev/null 2>&1 || missing+=(curl)
# ZIP archives in tests are made with Info-ZIP (test/helpers/zip-archives.ts)
command -v zip >/dev/null 2>&1 || missing+=(zip)
# 7z archives (refused with a reason on every channel: test/mail/mail-no-silent-drop.test.ts)
command -v 7z >/dev/null 2>&1 || missing+=(p7zip-full)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# the FTP interop suite (test/ftp/ftps-interop.test.ts) drives these clients as real processes
command -v lftp >/dev/null 2>&1 || missing+=(lftp)
command -v php >/dev/null 2>&1 || missing+=(php-cli)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
[ -f /usr/share/java/commons-net.jar ] || missing+=(libcommons-net-java)
command -v rclone >/dev/null 2>&1 || missing+=(rclone)
# Perl's and Ruby's Net::FTP loops (test/ftp/ftps-loops.test.ts); Ruby's net-ftp gem ships with Debian's ruby
perl -MIO::Socket::SSL -e1 >/dev/null 2>&1 || missing+=(libio-socket-ssl-perl)
command -v ruby >/dev/null 2>&1 || missing+=(ruby)
[ -x /usr/sbin/vsftpd ] || missing+=(vsftpd)
# the SFTP tests' real clients and the SFTP benchmark's reference server
command -v sftp >/dev/null 2>&1 || missing+=(openssh-client)
[ -x /usr/lib/openssh/sftp-server ] || missing+=(openssh-server)
command -v sshpass >/dev/null 2>&1 || missing+=(sshpass)
# strict SSH clients and the WinSCP-sequence test (test/sftp): asyncssh and paramiko under Debian's python3
/usr/bin/python3 -c 'import asyncssh' >/dev/null 2>&1 || missing+=(python3-asyncssh)
/usr/bin/python3 -c 'import paramiko' >/dev/null 2>&1 || missing+=(python3-paramiko)
# the matching tests encrypt PDFs with qpdf, the reference tool (test/helpers/einvoice.ts)
command -v qpdf >/dev/null 2>&1 || missing+=(qpdf)
# the XML e-invoice tests read the rendered PDF's text with poppler's pdftotext (test/intake/xml-einvoices.test.ts)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
# the mail container tests check their TNEF fixtures with Debian's reader (test/mail/mail-containers.test.ts)
command -v tnef >/dev/null 2>&1 || missing+=(tnef)
# the dashboard's browser tests (test/dashboard) drive Debian's chromium through playwright-core
[ -x /usr/bin/chromium ] || missing+=(chromium)
# the engine fault tests (test/ops): PgBouncer in front of PostgreSQL, Redis Sentinel, a private
# PostgreSQL cluster (initdb and pg_ctl come with the server package)
command -v pgbouncer >/dev/null 2>&1 || missing+=(pgbouncer)
command -v redis-sentinel >/dev/null 2>&1 || missing+=(redis-sentinel)
# the alerting rules' tests (test/ops/prometheus-*.test.ts): promtool, and a real Prometheus server
command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
# the SMTP receiver's tests (test/mail/smtp-*.test.ts): swaks as a client, Postfix as the relay
# (and smtp-source for bench:smtp), dnsmasq serving SPF/DKIM/DMARC records, python3-dkim's signer
command -v swaks >/dev/null 2>&1 || missing+=(swaks)
command -v postfix >/dev/null 2>&1 || missing+=(postfix)
command -v dnsmasq >/dev/null 2>&1 || missing+=(dnsmasq-base)
command -v dkimsign >/dev/null 2>&1 || missing+=(python3-dkim)

if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "The test suites need Debian packages this machine lacks. Run, as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  # Postfix installs without asking and without a configuration of its own: its tests bring theirs
  echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
for _ in $(seq 1 30); do
  redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "Redis on 127.0.0.1:6379 or PostgreSQL on 127.0.0.1:5432 did not answer within 30 s" >&2
exit 1
