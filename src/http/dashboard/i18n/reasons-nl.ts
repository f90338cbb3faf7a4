// Dutch words for the intake reasons (domain/intake-reasons.ts): the same codes and placeholders
// as the English catalogue (test/unit/intake-reasons.test.ts holds them to it).
import type { ReasonWords } from './reasons-en.ts';

const RENAME = 'hernoem het bestand of koppel het zelf';
const TOTALS = 'het totaal van de factuur is {{total}}: corrigeer het totaal van de factuur of stuur het juiste bestand';
const CMS = 'een handtekeningcontainer (CMS/PKCS#7, .p7m)';

export const reasonsNl: ReasonWords = {
  reason: {
    file_empty: 'Het bestand is leeg; stuur het opnieuw',
    file_tnef: 'Het bestand is een Outlook-TNEF-container (winmail.dat), geen pdf; stuur de pdf zelf',
    file_cms_unreadable: `Het bestand is ${CMS} die niet te openen is: {{error}}`,
    file_cms_no_pdf: `Het bestand is ${CMS} zonder pdf erin`,
    file_not_pdf: 'Het bestand is geen pdf (de kop %PDF- ontbreekt); stuur de factuur als pdf-bestand',
    file_too_large: 'Het bestand is groter dan {{max}}; stuur een kleinere pdf (gescand met een lagere resolutie, of gecomprimeerd)',
    pdf_damaged:
      'De pdf is niet te lezen: de pdf is beschadigd of onvolledig; sla hem opnieuw op of exporteer hem opnieuw uit het programma dat hem maakte en stuur het nieuwe bestand',
    pdf_unreadable:
      'De pdf is niet te lezen: de pdf is beschadigd of onvolledig; sla hem opnieuw op of exporteer hem opnieuw uit het programma dat hem maakte en stuur het nieuwe bestand',
    pdf_encrypted: 'De pdf is met een wachtwoord beveiligd, dus hij kan niet worden gecontroleerd of getoond; stuur hem zonder wachtwoord',
    pdf_no_pages: "De pdf heeft geen pagina's; stuur de hele factuur",
    pdf_check_timeout: 'De pdf kon niet binnen {{seconds}} s worden gecontroleerd; stuur hem opnieuw, of een kleinere of eenvoudigere pdf van de factuur',
    pdf_too_complex:
      'De pdf kon niet worden gecontroleerd: hij vraagt meer geheugen dan een controle mag gebruiken; stuur een kleinere of eenvoudigere pdf van de factuur (druk hem opnieuw af naar pdf)',
    pdf_check_failed:
      'De pdf kon niet worden gecontroleerd: hij vraagt meer geheugen dan een controle mag gebruiken; stuur een kleinere of eenvoudigere pdf van de factuur (druk hem opnieuw af naar pdf)',
    name_path_parts: 'De bestandsnaam {{name}} bevat mapnamen; stuur een gewone naam zoals <factuurnummer>.pdf',
    name_control_characters: 'De bestandsnaam {{name}} bevat stuurtekens',
    name_no_invoice: 'De bestandsnaam {{name}} heeft geen factuur-id of -nummer vóór .pdf',
    xml_unreadable: 'Het XML-bestand is niet te lezen: {{problem}}; exporteer het opnieuw uit het programma dat het maakte',
    xml_not_einvoice: 'Het XML-bestand is geen e-factuur (het hoofdelement is {{root}}); stuur een UBL- of CII-factuur (XRechnung, Factur-X) of creditnota',
    xml_not_invoice: 'Het XML-bestand is {{what}}, geen factuur',
    xml_no_number: 'De XML-e-factuur heeft geen factuurnummer (BT-1)',
    account_disabled: 'Het account is uitgeschakeld: bestanden die ernaar worden gestuurd, worden niet verwerkt',
    staged_missing: 'Het ontvangen bestand is niet meer beschikbaar',
    waiting: 'Wacht tot {{until}} op een factuur met id of nummer {{awaits}}',
    no_invoice: 'Geen factuur met id of nummer {{awaits}}',
    invoice_deleted: 'De factuur {{invoice}} is verwijderd',
    document_kept:
      'Factuur {{number}} heeft al {{filename}}, gekoppeld {{keptBy}}; dit bestand is gevonden {{by}} en vervangt het daarom niet: stuur het als {{number}}.pdf of koppel het zelf om het document te vervangen',
    assigned: 'Met de hand gekoppeld aan factuur {{number}}',
    matched: 'Gevonden {{by}} ({{number}})',
    same_file: 'De factuur had precies dit bestand al; er is niets veranderd',
    from_signed_verified: `De pdf is uit ${CMS} gehaald; de handtekening is gecontroleerd`,
    from_signed_unverified: `De pdf is uit ${CMS} gehaald; de handtekening is niet gecontroleerd, alleen uitgepakt`,
    from_junk_dropped: 'De {{skipped}} bytes vóór de kop %PDF- van de pdf zijn weggelaten',
    from_einvoice_xml: 'Als pdf opgemaakt uit de XML-e-factuur, die erin is ingesloten als {{name}} en als origineel bewaard blijft',
    gave_up:
      'Gestopt na {{attempts}} pogingen: de dienst kon het bestand niet verwerken (een fout aan onze kant, gelogd voor de beheerders); probeer het opnieuw of stuur het nog eens',
    name_and_einvoices_name_several: `De naam van het bestand en de e-facturen erin noemen verschillende facturen, {{numbers}}; ${RENAME}`,
    note_subject_many_files:
      'het onderwerp van de e-mail noemt {{numbers}}, maar het bericht had {{files}} bestanden, dus het onderwerp kan niet zeggen welk de factuur is',
    note_reply_subject_many_files:
      'het onderwerp van het antwoord noemt {{numbers}}, maar het bericht had {{files}} bestanden, dus het onderwerp kan niet zeggen welk de factuur is',
    note_subject_evidence_first: 'het onderwerp van de e-mail noemt {{numbers}}, maar wat het bestand zelf zegt gaat voor',
    note_reply_subject_evidence_first: 'het onderwerp van het antwoord noemt {{numbers}}, maar wat het bestand zelf zegt gaat voor',
    note_overruled_name: 'Gevonden {{by}}; genegeerd: de naam {{name}}, die geen factuur noemt',
    note_overruled_subject: 'Gevonden {{by}}; genegeerd: het onderwerp van de e-mail, dat {{numbers}} noemt',
    note_overruled_reply_subject: 'Gevonden {{by}}; genegeerd: het onderwerp van het antwoord, dat {{numbers}} noemt',
    note_overruled_name_subject: 'Gevonden {{by}}; genegeerd: de naam {{name}}, die geen factuur noemt; het onderwerp van de e-mail, dat {{numbers}} noemt',
    note_overruled_name_reply_subject:
      'Gevonden {{by}}; genegeerd: de naam {{name}}, die geen factuur noemt; het onderwerp van het antwoord, dat {{numbers}} noemt',
    could_be_either: 'Het bestand kan factuur {{numbers}} zijn; hernoem het of koppel het zelf',
    name_and_einvoice_differ: `De naam van het bestand zegt {{number}}, maar de e-factuur erin zegt {{other}}; ${RENAME}`,
    einvoice_and_name_differ: `De e-factuur in het bestand zegt {{number}}, maar de naam zegt {{other}}; ${RENAME}`,
    name_and_unknown_einvoice: `De naam van het bestand zegt {{number}}, maar de e-factuur erin zegt {{numbers}}, en dat is geen factuur van dit account; ${RENAME}`,
    einvoices_disagree: `Een e-factuur in het bestand zegt {{number}}, maar een andere zegt {{numbers}}, en dat is geen factuur van dit account; ${RENAME}`,
    name_and_subject_differ: `De naam van het bestand zegt {{number}}, maar het onderwerp van de e-mail zegt {{numbers}}; ${RENAME}`,
    subject_names_several: 'Het onderwerp van de e-mail noemt {{numbers}}; geef het bestand het nummer van de factuur of koppel het zelf',
    reply_subject_names_several: 'Het onderwerp van het antwoord noemt {{numbers}}; geef het bestand het nummer van de factuur of koppel het zelf',
    einvoice_total_differs: `De e-factuur noemt factuur {{number}} met een totaal van {{grand}}; ${TOTALS}`,
    einvoice_totals_differ: `De e-factuur noemt factuur {{number}} met een totaal van {{grand}}, te betalen {{due}}; ${TOTALS}`,
    einvoice_credit_note_sign:
      'De e-factuur is creditnota {{number}} van {{grand}}, maar het totaal van de factuur is {{total}}; een creditnota is een factuur met een negatief totaal: zet het totaal van de factuur op {{grand}}, of stuur het bestand van factuur {{number}}',
    einvoice_sign_differs:
      'De e-factuur noemt factuur {{number}} met een totaal van {{grand}}, maar het totaal van de factuur is {{total}}: de tekens verschillen; is het bestand een creditnota, zet het totaal van de factuur dan op {{grand}}, stuur anders het bestand van factuur {{number}}',
    einvoice_due_differs: `De e-factuur noemt factuur {{number}} met een te betalen bedrag van {{due}}; ${TOTALS}`,
    note_credit_note_corrects:
      'de e-factuur is creditnota {{number}}, die factuur {{corrects}} corrigeert: hij wordt alleen gekoppeld aan een factuur met nummer {{number}} (met een negatief totaal), nooit aan de factuur die hij corrigeert',
    note_einvoice_unread: 'er is een XML-e-factuur gevonden, maar het nummer ervan was niet te lezen',
    note_pdf_no_text: 'de pdf heeft geen tekst om te lezen (een scan?), dus alleen de naam kon zeggen welke factuur het is',
    note_pdf_text_several: 'de tekst van de pdf noemt de facturen {{numbers}}',
    note_pdf_text_unknown: 'de tekst van de pdf noemt factuur {{numbers}}, en dat is geen factuur van dit account',
    waiting_device: 'Wacht tot {{until}} op een factuur die de pdf noemt: de bestandsnaam {{name}} is de naam van een scanner of camera, geen factuurnummer',
    no_invoice_device:
      'De bestandsnaam {{name}} is de naam van een scanner of camera, geen factuurnummer, en de pdf noemt geen factuur van dit account; geef het bestand het nummer van de factuur of wijs het zelf toe',
    device_name_nothing_inside:
      'De bestandsnaam {{name}} is de naam van een scanner of camera, geen factuurnummer, en niets in de pdf noemt een factuur (geen e-factuur, geen factuurnummer in de tekst); geef het bestand het nummer van de factuur of wijs het zelf toe',
    pdf_text_names_several:
      'De tekst van de pdf noemt meerdere facturen ({{numbers}}) en zegt dus niet welke het is; geef het bestand het nummer van de factuur of wijs het zelf toe',
    document_replaced:
      'Niet meer het document van de factuur: {{filename}} heeft het vervangen als document van factuur {{number}}, gevonden {{by}}, wat minstens zo zwaar weegt als het bewijs van dit bestand',
    note_einvoice_names_unknown: 'de e-factuur noemt {{numbers}}, en dat is nog geen factuur van dit account',
    note_pdf_text_also_unknown:
      'de tekst van de pdf noemt factuur {{number}}, maar ook {{numbers}}, en dat is (nog) geen factuur van dit account: het bestand kan die zijn',
    note_pdf_text_no_total: 'de tekst van de pdf noemt factuur {{number}}, maar niet het totaal {{total}}',
    zip_too_large: 'Het ZIP-archief is groter dan {{max}}',
    zip_unreadable: 'Het ZIP-archief is niet te lezen: het is beschadigd of geen ZIP-archief; pak de bestanden opnieuw in en stuur het nieuwe archief',
    zip_no_files: 'Het ZIP-archief bevat geen bestanden',
    zip_empty: 'Het ZIP-archief is leeg',
    zip_too_many_entries: 'Het ZIP-archief bevat {{count}} items; er worden er hoogstens {{max}} aangenomen',
    zip_unpacks_too_large: 'Het ZIP-archief pakt uit tot {{total}}; hoogstens {{max}} bytes worden aangenomen',
    zip_entry_unreadable: '{{name}} in het ZIP-archief is niet te lezen: het is beschadigd; pak de bestanden opnieuw in en stuur het nieuwe archief',
    zip_entry_bomb: '{{name}} in het ZIP-archief is {{ratio}} op 1 gecomprimeerd (meer dan {{max}} op 1): geweigerd als mogelijke zipbom',
    zip_entry_encrypted: '{{name}} in het ZIP-archief is versleuteld; stuur het zonder wachtwoord',
    zip_entry_nested: '{{name}} is een archief in het ZIP-archief; archieven in archieven worden niet uitgepakt',
    zip_entry_too_large: '{{name}} in het ZIP-archief is groter dan {{max}} ({{size}})',
    unpacked_one: 'Uitgepakt tot {{count}} bestand',
    unpacked_other: 'Uitgepakt tot {{count}} bestanden',
    unpacked_some_refused_one: 'Uitgepakt tot {{count}} bestand, waarvan {{refused}} geweigerd',
    unpacked_some_refused_other: 'Uitgepakt tot {{count}} bestanden, waarvan {{refused}} geweigerd',
    attachment_not_pdf: 'De bijlage {{filename}} is geen pdf',
    attachment_too_large: 'De bijlage is groter dan {{max}} ({{size}} gecodeerd) en is niet gedownload',
    attachment_nested_deep: '{{name}} zit meer dan {{depth}} niveaus diep en is niet geopend',
    attachment_damaged: '{{name}} is niet te lezen ({{error}})',
    attachment_unopenable: '{{name}} is niet te openen: {{error}}',
    no_pdf_attached: 'Geen pdf bijgevoegd',
    held_sender_not_listed:
      '{{sender}} staat niet op de lijst van afzenders die bestanden mogen sturen; een eigenaar kan het vrijgeven (en de afzender toevoegen) of weggooien',
    held_sender_not_authenticated:
      '{{sender}} staat op de lijst van afzenders, maar niets toont dat de mail van die afzender komt (geen DMARC-, SPF- of DKIM-pass voor het domein); een eigenaar kan het vrijgeven of weggooien',
    archive_not_read: "{{kind}}-archieven worden niet gelezen: stuur de pdf's of een ZIP",
  },
  awaited: { einvoiceNumber: 'het nummer {{number}} uit de e-factuur' },
  evidence: {
    manual: 'met de hand',
    invoice_id: 'op zijn naam',
    invoice_number: 'op zijn naam',
    einvoice: 'op zijn e-factuur',
    name_token: 'op een nummer in zijn naam',
    subject: 'op het onderwerp van de e-mail',
    pdf_text: 'op het factuurnummer en totaal in zijn tekst',
  },
};
