-- Never the wrong invoice (docs/matching.md): the evidence that attached each document (a later
-- file replaces it only with evidence at least as strong), how many files an e-mail carried (its
-- subject is evidence only for a message's only file), invoice numbers in Unicode NFC, and the
-- separator-blind form of each number that name tokens are compared in. Documents that say which
-- invoice they are: the original XML of a document rendered from an XML e-invoice, and the PDF's
-- own text as the weakest evidence (pdf_text).

alter table documents add column matched_by text
  check (matched_by in ('invoice_id', 'invoice_number', 'einvoice', 'subject', 'name_token', 'pdf_text', 'manual'));
alter table documents add column original bytea, add column original_name text;
alter table documents alter column original set storage external;
alter table intake_records drop constraint intake_records_matched_by_check;
alter table intake_records add constraint intake_records_matched_by_check
  check (matched_by in ('invoice_id', 'invoice_number', 'einvoice', 'subject', 'name_token', 'pdf_text', 'manual'));
update documents d set matched_by = r.matched_by
  from intake_records r where r.document_id = d.id and r.status = 'attached' and r.matched_by is not null;

alter table intake_staging add column message_files int;

update invoices i set invoice_number = normalize(i.invoice_number, NFC)
  where i.invoice_number <> normalize(i.invoice_number, NFC)
    and not exists (select 1 from invoices o where o.account_id = i.account_id and o.mode = i.mode and o.deleted_at is null
                    and o.invoice_number = normalize(i.invoice_number, NFC));

-- keep in step with SEPARATORS and matchKey in src/domain/match-names.ts
create index invoices_number_key on invoices (account_id, mode, translate(lower(invoice_number), '_./ ', '----')) where deleted_at is null;
