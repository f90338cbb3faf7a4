# Python's ftplib.FTP_TLS (explicit FTPS): the recipe of docs/ftp.md, run by test/ftp/ftps-interop.test.ts.
# usage: python3 ftplib-job.py PORT USER PASSWORD GOOD_LOCAL GOOD_REMOTE TEMP_LOCAL TEMP_REMOTE FINAL_REMOTE JUNK_LOCAL JUNK_REMOTE
import ftplib, io, ssl, sys

port, user, password, good_local, good_remote, temp_local, temp_remote, final_remote, junk_local, junk_remote = sys.argv[1:11]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE  # the test server's certificate is self-signed
ftp = ftplib.FTP_TLS(context=context, timeout=20)
ftp.connect('127.0.0.1', int(port))
ftp.login(user, password)  # sends AUTH TLS first
ftp.prot_p()  # PBSZ 0 + PROT P: data connections encrypted
for local, remote in ((good_local, good_remote), (temp_local, temp_remote), (junk_local, junk_remote)):
    with open(local, 'rb') as f:
        print(ftp.storbinary('STOR ' + remote, f))
print(ftp.rename(temp_remote, final_remote))
print('== LIST')
ftp.retrlines('LIST')
print('== NLST')
print('\n'.join(ftp.nlst()))
print('== ERROR')
error = io.BytesIO()
ftp.retrbinary('RETR ' + junk_remote + '.error.txt', error.write)
print(error.getvalue().decode())
ftp.quit()
