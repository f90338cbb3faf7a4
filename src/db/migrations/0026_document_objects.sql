-- Issue 46: the document store. Rows point at bytes by their SHA-256; with DOCUMENT_STORE=database
-- (the default) the bytes live here, one row per content (shared by staging, documents and
-- duplicates). modified_at is renewed by every put of the same content: the sweep removes an
-- object that no row points at only when it is older than its grace period.
create table document_objects (
  sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
  size integer not null,
  content bytea not null,
  modified_at timestamptz not null default now()
);
-- PDFs are compressed already: no pglz attempt on every put
alter table document_objects alter column content set storage external;
