-- The records of a document, found when a better file replaces it (their reason then says which
-- file is the invoice's document and why: intake/attached-follow-up-repository.ts).
create index intake_records_document on intake_records (document_id) where document_id is not null;
