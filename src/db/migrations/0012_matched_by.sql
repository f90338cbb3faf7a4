-- Matching beyond the file name (issue 16): how an attached file found its invoice, and the
-- e-mail subject it came with (matched when the name and the e-invoice name nothing).

alter table intake_records add column matched_by text
  check (matched_by in ('invoice_id', 'invoice_number', 'einvoice', 'subject', 'name_token', 'manual'));
alter table intake_staging add column subject text;

-- files attached before: by hand (the note says so), by id, or by number
update intake_records set matched_by = case
    when reason like 'Assigned by hand%' then 'manual'
    when invoice_id = match_name then 'invoice_id'
    else 'invoice_number'
  end
  where status = 'attached';
