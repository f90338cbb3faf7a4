# Ruby's Net::FTP (the net-ftp gem Debian's ruby carries, explicit FTPS: ssl: with AUTH TLS,
# PBSZ 0 and PROT P by itself): uploads every file given, one session, binary mode; run by
# test/ftp/ftps-loops.test.ts.
# usage: ruby ruby-loop.rb PORT USER PASSWORD TLS_VERSION(1.2|1.3) FILE...
# prints one line per file: "OK <reply>" or "FAIL <error>"
require 'net/ftp'
require 'openssl'

port, user, password, tls, *files = ARGV
version = tls == '1.3' ? OpenSSL::SSL::TLS1_3_VERSION : OpenSSL::SSL::TLS1_2_VERSION
ssl = { verify_mode: OpenSSL::SSL::VERIFY_NONE, min_version: version, max_version: version }
ftp = Net::FTP.new('127.0.0.1', port: port.to_i, ssl: ssl, passive: true, open_timeout: 20, read_timeout: 20)
ftp.login(user, password)
ftp.binary = true
files.each do |file|
  begin
    ftp.putbinaryfile(file, File.basename(file))
    puts "OK #{ftp.last_response.strip}"
  rescue Net::FTPError => e
    puts "FAIL #{e.message.strip}"
  end
end
ftp.quit
