-- A document attached from an intake file keeps its bytes where they were staged instead of
-- copying them (100 KB and more per file, twice through TOAST): its content is null and
-- staged_id names the intake_staging row that holds them. Documents uploaded by the API keep
-- their own content. Whoever tombstones a document frees the bytes in either place.
alter table documents add column staged_id text references intake_staging(id);
create index documents_staged on documents (staged_id) where staged_id is not null;
-- PDFs are compressed already: no pglz attempt on every upload
alter table documents alter column content set storage external;
