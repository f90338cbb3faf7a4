# paramiko (Debian's python3-paramiko) doing exactly what WinSCP does by default to replace a file
# over SFTP ("transfer to temporary filename" for files of 100 KB or more): upload x.pdf.filepart,
# delete x.pdf, rename x.pdf.filepart to x.pdf. Then a name in Latin-1 (not UTF-8).
# Run by test/sftp/replace-sequence.test.ts with /usr/bin/python3.
# usage: python3 paramiko-winscp.py PORT USER PASSWORD FIRST_LOCAL CORRECTED_LOCAL REMOTE
import sys
import paramiko

port, user, password, first_local, corrected_local, remote = sys.argv[1:7]
transport = paramiko.Transport(('127.0.0.1', int(port)))
transport.connect(username=user, password=password)
sftp = paramiko.SFTPClient.from_transport(transport)

sftp.put(first_local, remote)  # the first version (paramiko checks its size with a stat)
print('== FIRST', sftp.stat(remote).st_size)
sftp.put(corrected_local, remote + '.filepart')
print('== FILEPART', sftp.stat(remote + '.filepart').st_size)
sftp.remove(remote)
print('== REMOVED')
sftp.rename(remote + '.filepart', remote)
print('== RENAMED', sftp.stat(remote).st_size)
try:
    with sftp.open(b'caf\xe9.pdf', 'wb') as f:
        f.write(b'%PDF-1.7\n')
    print('== LATIN1 stored')
except IOError as e:
    print('== LATIN1 refused:', e)
sftp.close()
transport.close()
