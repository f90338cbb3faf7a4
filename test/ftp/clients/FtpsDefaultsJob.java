// Apache Commons Net FTPSClient with its defaults, as an integrator first writes it: no PBSZ
// before PROT P, and no setFileType (Commons Net then sends no TYPE and converts line ends
// itself: ASCII mode). Run by test/ftp/ftp-transfer-modes.test.ts.
// usage: java -cp OUT:/usr/share/java/commons-net.jar FtpsDefaultsJob PORT USER PASSWORD LOCAL REMOTE
// prints "== ASCII" with the reply to the upload in the default mode, then "== BINARY" with the
// reply to the same upload after setFileType(BINARY_FILE_TYPE)
import java.io.FileInputStream;
import java.io.InputStream;
import java.time.Duration;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPSClient;
import org.apache.commons.net.util.TrustManagerUtils;

public class FtpsDefaultsJob {
  public static void main(String[] a) throws Exception {
    FTPSClient ftp = new FTPSClient(false);
    ftp.setTrustManager(TrustManagerUtils.getAcceptAllTrustManager()); // self-signed test certificate
    ftp.setConnectTimeout(20_000);
    ftp.setDefaultTimeout(20_000);
    ftp.setDataTimeout(Duration.ofSeconds(20));
    ftp.connect("127.0.0.1", Integer.parseInt(a[0]));
    if (!ftp.login(a[1], a[2])) throw new IllegalStateException("login: " + ftp.getReplyString());
    ftp.execPROT("P"); // without execPBSZ(0)
    System.out.println("== PROT");
    System.out.print(ftp.getReplyString());
    ftp.enterLocalPassiveMode();
    System.out.println("== ASCII");
    store(ftp, a[3], a[4]);
    ftp.setFileType(FTP.BINARY_FILE_TYPE);
    System.out.println("== BINARY");
    store(ftp, a[3], a[4]);
    ftp.logout();
    ftp.disconnect();
  }

  static void store(FTPSClient ftp, String local, String remote) throws Exception {
    try (InputStream in = new FileInputStream(local)) {
      System.out.println(ftp.storeFile(remote, in) ? "stored" : "refused");
    }
    System.out.print(ftp.getReplyString());
  }
}
