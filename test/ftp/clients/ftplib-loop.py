# Python's ftplib.FTP_TLS uploading every file given in one session, with TLS pinned to one
# version; run by test/ftp/ftps-loops.test.ts. ftplib waits for the server's close_notify after
# each upload (unwrap()), which the server must send before it closes the data connection.
# usage: python3 ftplib-loop.py PORT USER PASSWORD TLS_VERSION(1.2|1.3) FILE...
# prints one line per file: "OK <reply>" or "FAIL <error>"
import ftplib, os, ssl, sys

port, user, password, tls, *files = sys.argv[1:]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE  # the test server's certificate is self-signed
version = ssl.TLSVersion.TLSv1_3 if tls == '1.3' else ssl.TLSVersion.TLSv1_2
context.minimum_version = context.maximum_version = version
ftp = ftplib.FTP_TLS(context=context, timeout=20)
ftp.connect('127.0.0.1', int(port))
ftp.login(user, password)
ftp.prot_p()
for file in files:
    try:
        with open(file, 'rb') as f:
            print('OK ' + ftp.storbinary('STOR ' + os.path.basename(file), f))
    except ftplib.all_errors as e:
        print('FAIL ' + str(e).replace('\n', ' '))
ftp.quit()
