# Python's ftplib.FTP_TLS: uploads one file (unless REMOTE is -), then LISTs each pattern
# (test/ftp/ftp-hostile-clients.test.ts).
# usage: python3 ftplib-patterns.py PORT USER PASSWORD LOCAL REMOTE PATTERN...
# prints `== UPLOAD` (the 226) and `== P<n>` (the LIST lines of the n-th pattern, then its reply)
import ssl, sys, ftplib

port, user, password, local, remote = sys.argv[1:6]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE  # the test server's certificate is self-signed
ftp = ftplib.FTP_TLS(context=context, timeout=60)
ftp.connect('127.0.0.1', int(port))
ftp.login(user, password)
ftp.prot_p()
if remote != '-':
    print('== UPLOAD')
    with open(local, 'rb') as f:
        print(ftp.storbinary('STOR ' + remote, f))
for n, pattern in enumerate(sys.argv[6:]):
    print('== P%d' % n, flush=True)
    try:
        print(ftp.retrlines('LIST ' + pattern), flush=True)
    except ftplib.error_perm as e:
        print(e, flush=True)
ftp.quit()
