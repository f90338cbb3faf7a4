// Apache Commons Net FTPSClient (explicit or implicit FTPS): the recipe of docs/ftp.md, run by
// test/ftp/ftps-interop.test.ts. Build: javac -cp /usr/share/java/commons-net.jar -d OUT FtpsJob.java
// usage: java -cp OUT:/usr/share/java/commons-net.jar FtpsJob explicit|implicit PORT USER PASSWORD GOOD_LOCAL GOOD_REMOTE TEMP_LOCAL TEMP_REMOTE FINAL_REMOTE JUNK_LOCAL JUNK_REMOTE
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPFile;
import org.apache.commons.net.ftp.FTPSClient;
import org.apache.commons.net.util.TrustManagerUtils;

public class FtpsJob {
  public static void main(String[] a) throws Exception {
    FTPSClient ftp = new FTPSClient(a[0].equals("implicit"));
    ftp.setTrustManager(TrustManagerUtils.getAcceptAllTrustManager()); // self-signed test certificate
    ftp.setConnectTimeout(20_000);
    ftp.setDefaultTimeout(20_000);
    ftp.setDataTimeout(Duration.ofSeconds(20));
    ftp.connect("127.0.0.1", Integer.parseInt(a[1]));
    check(ftp, ftp.login(a[2], a[3]));
    ftp.execPBSZ(0);
    ftp.execPROT("P");
    ftp.enterLocalPassiveMode();
    check(ftp, ftp.setFileType(FTP.BINARY_FILE_TYPE));
    store(ftp, a[4], a[5]);
    store(ftp, a[6], a[7]);
    check(ftp, ftp.rename(a[7], a[8]));
    store(ftp, a[9], a[10]);
    System.out.println("== LIST");
    for (FTPFile f : ftp.listFiles()) System.out.println(f.getRawListing());
    System.out.println("== NLST");
    for (String name : ftp.listNames()) System.out.println(name);
    ByteArrayOutputStream error = new ByteArrayOutputStream();
    check(ftp, ftp.retrieveFile(a[10] + ".error.txt", error));
    System.out.println("== ERROR");
    System.out.print(error.toString("UTF-8"));
    ftp.logout();
    ftp.disconnect();
  }

  static void store(FTPSClient ftp, String local, String remote) throws IOException {
    try (InputStream in = new FileInputStream(local)) {
      check(ftp, ftp.storeFile(remote, in));
    }
    System.out.print(ftp.getReplyString());
  }

  static void check(FTPSClient ftp, boolean ok) {
    if (!ok) throw new IllegalStateException("FTP command failed: " + ftp.getReplyString());
  }
}
