// German words for the intake reasons (domain/intake-reasons.ts): the same codes and placeholders
// as the English catalogue (test/unit/intake-reasons.test.ts holds them to it).
import type { ReasonWords } from './reasons-en.ts';

const RENAME = 'benennen Sie die Datei um oder ordnen Sie sie selbst zu';
const TOTALS = 'die Rechnung hat die Summe {{total}}: korrigieren Sie die Summe der Rechnung oder senden Sie die passende Datei';
const CMS = 'ein Signaturcontainer (CMS/PKCS#7, .p7m)';

export const reasonsDe: ReasonWords = {
  reason: {
    file_empty: 'Die Datei ist leer; senden Sie sie erneut',
    file_tnef: 'Die Datei ist ein Outlook-TNEF-Container (winmail.dat), kein PDF; senden Sie das PDF selbst',
    file_cms_unreadable: `Die Datei ist ${CMS}, der sich nicht öffnen lässt: {{error}}`,
    file_cms_no_pdf: `Die Datei ist ${CMS} ohne PDF darin`,
    file_not_pdf: 'Die Datei ist kein PDF (der Kopf %PDF- fehlt); senden Sie die Rechnung als PDF-Datei',
    file_too_large: 'Die Datei ist größer als {{max}}; senden Sie ein kleineres PDF (mit geringerer Auflösung gescannt oder komprimiert)',
    pdf_damaged:
      'Das PDF lässt sich nicht lesen: es ist beschädigt oder unvollständig; speichern oder exportieren Sie es erneut aus dem Programm, das es erstellt hat, und senden Sie die neue Datei',
    pdf_unreadable:
      'Das PDF lässt sich nicht lesen: es ist beschädigt oder unvollständig; speichern oder exportieren Sie es erneut aus dem Programm, das es erstellt hat, und senden Sie die neue Datei',
    pdf_encrypted: 'Das PDF ist mit einem Passwort geschützt, daher lässt es sich weder prüfen noch anzeigen; senden Sie es ohne Passwort',
    pdf_no_pages: 'Das PDF hat keine Seiten; senden Sie die ganze Rechnung',
    pdf_check_timeout:
      'Das PDF konnte nicht innerhalb von {{seconds}} s geprüft werden; senden Sie es erneut oder ein kleineres oder einfacheres PDF der Rechnung',
    pdf_too_complex:
      'Das PDF konnte nicht geprüft werden: es braucht mehr Speicher, als eine Prüfung nutzen darf; senden Sie ein kleineres oder einfacheres PDF der Rechnung (drucken Sie es erneut als PDF)',
    pdf_check_failed:
      'Das PDF konnte nicht geprüft werden: es braucht mehr Speicher, als eine Prüfung nutzen darf; senden Sie ein kleineres oder einfacheres PDF der Rechnung (drucken Sie es erneut als PDF)',
    name_path_parts: 'Der Dateiname {{name}} enthält Ordner; senden Sie einen einfachen Namen wie <Rechnungsnummer>.pdf',
    name_control_characters: 'Der Dateiname {{name}} enthält Steuerzeichen',
    name_no_invoice: 'Der Dateiname {{name}} hat keine Rechnungs-ID oder -nummer vor .pdf',
    xml_unreadable: 'Die XML-Datei lässt sich nicht lesen: {{problem}}; exportieren Sie sie erneut aus dem Programm, das sie erstellt hat',
    xml_not_einvoice:
      'Die XML-Datei ist keine E-Rechnung (ihr Wurzelelement ist {{root}}); senden Sie eine UBL- oder CII-Rechnung (XRechnung, Factur-X) oder Gutschrift',
    xml_not_invoice: 'Die XML-Datei ist {{what}}, keine Rechnung',
    xml_no_number: 'Die XML-E-Rechnung hat keine Rechnungsnummer (BT-1)',
    account_disabled: 'Das Konto ist deaktiviert: Dateien an dieses Konto werden nicht verarbeitet',
    staged_missing: 'Die empfangene Datei ist nicht mehr vorhanden',
    waiting: 'Wartet bis {{until}} auf eine Rechnung mit der ID oder Nummer {{awaits}}',
    no_invoice: 'Keine Rechnung mit der ID oder Nummer {{awaits}}',
    invoice_deleted: 'Die Rechnung {{invoice}} wurde gelöscht',
    document_kept:
      'Rechnung {{number}} hat schon {{filename}}, zugeordnet {{keptBy}}; diese Datei wurde {{by}} gefunden und ersetzt es daher nicht: senden Sie sie als {{number}}.pdf oder ordnen Sie sie selbst zu, um das Dokument zu ersetzen',
    assigned: 'Von Hand der Rechnung {{number}} zugeordnet',
    matched: 'Gefunden {{by}} ({{number}})',
    same_file: 'Die Rechnung hatte genau diese Datei schon; nichts hat sich geändert',
    from_signed_verified: `Das PDF wurde aus ${CMS} genommen; seine Signatur wurde geprüft`,
    from_signed_unverified: `Das PDF wurde aus ${CMS} genommen; seine Signatur wurde nicht geprüft, nur ausgepackt`,
    from_junk_dropped: 'Die {{skipped}} Bytes vor dem Kopf %PDF- des PDF wurden weggelassen',
    from_einvoice_xml: 'Als PDF aus der XML-E-Rechnung erstellt, die darin als {{name}} eingebettet ist und als Original aufbewahrt wird',
    gave_up:
      'Nach {{attempts}} Versuchen aufgegeben: der Dienst konnte die Datei nicht verarbeiten (ein Fehler auf unserer Seite, für die Betreiber protokolliert); versuchen Sie es erneut oder senden Sie sie noch einmal',
    name_and_einvoices_name_several: `Der Name der Datei und ihre E-Rechnungen nennen verschiedene Rechnungen, {{numbers}}; ${RENAME}`,
    note_subject_many_files:
      'der Betreff der E-Mail nennt {{numbers}}, aber die Nachricht hatte {{files}} Dateien, also kann der Betreff nicht sagen, welche die Rechnung ist',
    note_reply_subject_many_files:
      'der Betreff der Antwort nennt {{numbers}}, aber die Nachricht hatte {{files}} Dateien, also kann der Betreff nicht sagen, welche die Rechnung ist',
    note_subject_evidence_first: 'der Betreff der E-Mail nennt {{numbers}}, aber was die Datei selbst sagt, geht vor',
    note_reply_subject_evidence_first: 'der Betreff der Antwort nennt {{numbers}}, aber was die Datei selbst sagt, geht vor',
    note_overruled_name: 'Gefunden {{by}}; übergangen: ihr Name {{name}}, der keine Rechnung nennt',
    note_overruled_subject: 'Gefunden {{by}}; übergangen: der Betreff der E-Mail, der {{numbers}} nennt',
    note_overruled_reply_subject: 'Gefunden {{by}}; übergangen: der Betreff der Antwort, der {{numbers}} nennt',
    note_overruled_name_subject: 'Gefunden {{by}}; übergangen: ihr Name {{name}}, der keine Rechnung nennt; der Betreff der E-Mail, der {{numbers}} nennt',
    note_overruled_name_reply_subject:
      'Gefunden {{by}}; übergangen: ihr Name {{name}}, der keine Rechnung nennt; der Betreff der Antwort, der {{numbers}} nennt',
    could_be_either: 'Die Datei kann die Rechnung {{numbers}} sein; benennen Sie sie um oder ordnen Sie sie selbst zu',
    name_and_einvoice_differ: `Der Name der Datei sagt {{number}}, aber ihre E-Rechnung sagt {{other}}; ${RENAME}`,
    einvoice_and_name_differ: `Die E-Rechnung der Datei sagt {{number}}, aber ihr Name sagt {{other}}; ${RENAME}`,
    name_and_unknown_einvoice: `Der Name der Datei sagt {{number}}, aber ihre E-Rechnung sagt {{numbers}}, und das ist keine Rechnung dieses Kontos; ${RENAME}`,
    einvoices_disagree: `Eine E-Rechnung der Datei sagt {{number}}, eine andere aber {{numbers}}, und das ist keine Rechnung dieses Kontos; ${RENAME}`,
    name_and_subject_differ: `Der Name der Datei sagt {{number}}, aber der Betreff der E-Mail sagt {{numbers}}; ${RENAME}`,
    subject_names_several: 'Der Betreff der E-Mail nennt {{numbers}}; geben Sie der Datei die Nummer der Rechnung oder ordnen Sie sie selbst zu',
    reply_subject_names_several: 'Der Betreff der Antwort nennt {{numbers}}; geben Sie der Datei die Nummer der Rechnung oder ordnen Sie sie selbst zu',
    einvoice_total_differs: `Die E-Rechnung nennt Rechnung {{number}} mit der Summe {{grand}}; ${TOTALS}`,
    einvoice_totals_differ: `Die E-Rechnung nennt Rechnung {{number}} mit der Summe {{grand}}, zu zahlen {{due}}; ${TOTALS}`,
    einvoice_credit_note_sign:
      'Die E-Rechnung ist die Gutschrift {{number}} über {{grand}}, aber die Rechnung hat die Summe {{total}}; eine Gutschrift ist eine Rechnung mit negativer Summe: setzen Sie die Summe der Rechnung auf {{grand}} oder senden Sie die Datei der Rechnung {{number}}',
    einvoice_sign_differs:
      'Die E-Rechnung nennt Rechnung {{number}} mit der Summe {{grand}}, aber die Rechnung hat die Summe {{total}}: die Vorzeichen unterscheiden sich; ist die Datei eine Gutschrift, setzen Sie die Summe der Rechnung auf {{grand}}, sonst senden Sie die Datei der Rechnung {{number}}',
    einvoice_due_differs: `Die E-Rechnung nennt Rechnung {{number}} mit dem Zahlbetrag {{due}}; ${TOTALS}`,
    note_credit_note_corrects:
      'die E-Rechnung ist die Gutschrift {{number}}, die die Rechnung {{corrects}} korrigiert: sie wird nur einer Rechnung mit der Nummer {{number}} (mit negativer Summe) zugeordnet, nie der Rechnung, die sie korrigiert',
    note_einvoice_unread: 'eine XML-E-Rechnung wurde gefunden, aber ihre Nummer ließ sich nicht lesen',
    note_pdf_no_text: 'das PDF hat keinen lesbaren Text (ein Scan?), also konnte nur sein Name sagen, welche Rechnung es ist',
    note_pdf_text_several: 'der Text des PDF nennt die Rechnungen {{numbers}}',
    note_pdf_text_unknown: 'der Text des PDF nennt die Rechnung {{numbers}}, und das ist keine Rechnung dieses Kontos',
    waiting_device:
      'Wartet bis {{until}} auf eine Rechnung, die das PDF nennt: sein Dateiname {{name}} ist der Name eines Scanners oder einer Kamera, keine Rechnungsnummer',
    no_invoice_device:
      'Der Dateiname {{name}} ist der Name eines Scanners oder einer Kamera, keine Rechnungsnummer, und das PDF nennt keine Rechnung dieses Kontos; geben Sie der Datei die Nummer der Rechnung oder ordnen Sie sie selbst zu',
    device_name_nothing_inside:
      'Der Dateiname {{name}} ist der Name eines Scanners oder einer Kamera, keine Rechnungsnummer, und nichts im PDF nennt eine Rechnung (keine E-Rechnung, keine Rechnungsnummer im Text); geben Sie der Datei die Nummer der Rechnung oder ordnen Sie sie selbst zu',
    pdf_text_names_several:
      'Der Text des PDF nennt mehrere Rechnungen ({{numbers}}) und sagt also nicht, welche es ist; geben Sie der Datei die Nummer der Rechnung oder ordnen Sie sie selbst zu',
    document_replaced:
      'Nicht mehr das Dokument der Rechnung: {{filename}} hat es als Dokument der Rechnung {{number}} ersetzt, gefunden {{by}}, was mindestens so stark zählt wie der Nachweis dieser Datei',
    note_einvoice_names_unknown: 'seine E-Rechnung nennt {{numbers}}, und das ist noch keine Rechnung dieses Kontos',
    note_pdf_text_also_unknown:
      'der Text des PDF nennt die Rechnung {{number}}, aber auch {{numbers}}, und das ist (noch) keine Rechnung dieses Kontos: die Datei kann jene sein',
    note_pdf_text_no_total: 'der Text des PDF nennt die Rechnung {{number}}, aber nicht ihre Summe {{total}}',
    zip_too_large: 'Das ZIP-Archiv ist größer als {{max}}',
    zip_unreadable:
      'Das ZIP-Archiv lässt sich nicht lesen: es ist beschädigt oder kein ZIP-Archiv; packen Sie die Dateien erneut und senden Sie das neue Archiv',
    zip_no_files: 'Das ZIP-Archiv enthält keine Dateien',
    zip_empty: 'Das ZIP-Archiv ist leer',
    zip_too_many_entries: 'Das ZIP-Archiv hat {{count}} Einträge; höchstens {{max}} werden angenommen',
    zip_unpacks_too_large: 'Das ZIP-Archiv entpackt sich zu {{total}}; höchstens {{max}} Bytes werden angenommen',
    zip_entry_unreadable: '{{name}} im ZIP-Archiv lässt sich nicht lesen: es ist beschädigt; packen Sie die Dateien erneut und senden Sie das neue Archiv',
    zip_entry_bomb: '{{name}} im ZIP-Archiv ist {{ratio}} zu 1 komprimiert (mehr als {{max}} zu 1): als mögliche ZIP-Bombe abgelehnt',
    zip_entry_encrypted: '{{name}} im ZIP-Archiv ist verschlüsselt; senden Sie es ohne Passwort',
    zip_entry_nested: '{{name}} ist ein Archiv im ZIP-Archiv; verschachtelte Archive werden nicht entpackt',
    zip_entry_too_large: '{{name}} im ZIP-Archiv ist größer als {{max}} ({{size}})',
    unpacked_one: 'In {{count}} Datei entpackt',
    unpacked_other: 'In {{count}} Dateien entpackt',
    unpacked_some_refused_one: 'In {{count}} Datei entpackt, davon {{refused}} abgelehnt',
    unpacked_some_refused_other: 'In {{count}} Dateien entpackt, davon {{refused}} abgelehnt',
    attachment_not_pdf: 'Der Anhang {{filename}} ist kein PDF',
    attachment_too_large: 'Der Anhang ist größer als {{max}} ({{size}} kodiert) und wurde nicht heruntergeladen',
    attachment_nested_deep: '{{name}} liegt mehr als {{depth}} Ebenen tief und wurde nicht geöffnet',
    attachment_damaged: '{{name}} lässt sich nicht lesen ({{error}})',
    attachment_unopenable: '{{name}} lässt sich nicht öffnen: {{error}}',
    no_pdf_attached: 'Kein PDF angehängt',
    held_sender_not_listed:
      '{{sender}} steht nicht auf der Liste der Absender, die Dateien senden dürfen; ein Inhaber kann sie freigeben (und den Absender hinzufügen) oder verwerfen',
    held_sender_not_authenticated:
      '{{sender}} steht auf der Liste der Absender, aber nichts zeigt, dass die Mail von dort kommt (kein DMARC-, SPF- oder DKIM-Pass für die Domain); ein Inhaber kann sie freigeben oder verwerfen',
    archive_not_read: '{{kind}}-Archive werden nicht gelesen: senden Sie die PDFs oder ein ZIP',
  },
  awaited: { einvoiceNumber: 'die Nummer {{number}} aus der E-Rechnung' },
  evidence: {
    manual: 'von Hand',
    invoice_id: 'über ihren Namen',
    invoice_number: 'über ihren Namen',
    einvoice: 'über ihre E-Rechnung',
    name_token: 'über eine Nummer in ihrem Namen',
    subject: 'über den Betreff der E-Mail',
    pdf_text: 'über Rechnungsnummer und Summe in ihrem Text',
  },
};
