# What people read: Python's ftplib against the refusals and the lenient rules of docs/ftp.md.
# Run by test/ftp/ftp-messages.test.ts. Each step prints "== STEP" and then the reply or error.
# usage: python3 ftplib-messages.py PORT USER PASSWORD PDF_LOCAL PDF_REMOTE
import ftplib, ssl, sys

port, user, password, pdf_local, pdf_remote = sys.argv[1:6]
port = int(port)
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE  # the test server's certificate is self-signed


def step(name, fn):
    print('== ' + name)
    try:
        print(fn())
    except ftplib.all_errors as e:
        print('ERROR ' + str(e))


def plain_login():
    ftp = ftplib.FTP(timeout=20)
    ftp.connect('127.0.0.1', port)
    try:
        return ftp.login(user, password)
    finally:
        ftp.close()


def empty_password():
    ftp = ftplib.FTP_TLS(context=context, timeout=20)
    ftp.connect('127.0.0.1', port)
    try:
        return ftp.login(user, '')
    finally:
        ftp.close()


step('PLAIN', plain_login)
step('EMPTY', empty_password)

ftp = ftplib.FTP_TLS(context=context, timeout=20)
ftp.connect('127.0.0.1', port)
ftp.login(user, password)
# PROT P without PBSZ first (Commons Net's execPROT("P") does this): PBSZ 0 is assumed
step('PROT', lambda: ftp.voidcmd('PROT P'))
ftp._prot_p = True  # what prot_p() records, so the data connections are wrapped in TLS
with open(pdf_local, 'rb') as f:
    step('STOR', lambda: ftp.storbinary('STOR ' + pdf_remote, f))
step('NLST', lambda: '\n'.join(ftp.nlst('*.pdf')))
step('NLST_ERROR', lambda: '\n'.join(ftp.nlst('*.error.txt')))
step('NLST_NONE', lambda: '\n'.join(ftp.nlst('nothing-*.zip')))
step('NLST_PATH', lambda: '\n'.join(ftp.nlst('sub/*.pdf')))
step('NLST_NAME', lambda: '\n'.join(ftp.nlst('nothing.pdf')))
# a client set to Latin-1 sends é as one byte, which is not UTF-8
ftp.encoding = 'latin-1'
with open(pdf_local, 'rb') as f:
    step('LATIN1', lambda: ftp.storbinary('STOR caf\u00e9.pdf', f))
ftp.encoding = 'utf-8'
with open(pdf_local, 'rb') as f:
    step('UTF8', lambda: ftp.storbinary('STOR caf\u00e9-' + pdf_remote, f))
ftp.quit()
