-- Issue 46: rows point at the document store's objects by SHA-256 instead of holding bytea. Today's
-- bytes move into document_objects (the database driver's table, DOCUMENT_STORE=database); another
-- store gets them with `npm run admin -- move-documents`. A null pointer: the bytes are no longer
-- kept (discarded, retention, attached elsewhere); the sweep removes objects nothing points at.
insert into document_objects (sha256, size, content)
  select encode(sha256(content), 'hex'), length(content), content from intake_staging where content is not null
  on conflict (sha256) do nothing;
insert into document_objects (sha256, size, content)
  select encode(sha256(content), 'hex'), length(content), content from documents where content is not null
  on conflict (sha256) do nothing;
insert into document_objects (sha256, size, content)
  select encode(sha256(original), 'hex'), length(original), original from documents where original is not null
  on conflict (sha256) do nothing;
insert into document_objects (sha256, size, content)
  select encode(sha256(raw), 'hex'), length(raw), raw from smtp_messages where raw is not null
  on conflict (sha256) do nothing;

alter table intake_staging add column content_sha256 text;
update intake_staging set content_sha256 = encode(sha256(content), 'hex') where content is not null;
alter table intake_staging drop column content;

-- a document made from a staged file points at the same object as the file (shared, not copied)
alter table documents add column content_sha256 text, add column original_sha256 text;
update documents d set content_sha256 = coalesce(encode(sha256(d.content), 'hex'), (select s.content_sha256 from intake_staging s where s.id = d.staged_id)),
  original_sha256 = encode(sha256(d.original), 'hex')
  where d.content is not null or d.staged_id is not null or d.original is not null;
alter table documents drop column content, drop column original;

alter table smtp_messages add column raw_sha256 text;
update smtp_messages set raw_sha256 = encode(sha256(raw), 'hex') where raw is not null;
alter table smtp_messages drop column raw;

-- the sweep asks, for each object, whether any row points at it
create index intake_staging_object on intake_staging (content_sha256) where content_sha256 is not null;
create index documents_object on documents (content_sha256) where content_sha256 is not null;
create index documents_original_object on documents (original_sha256) where original_sha256 is not null;
create index smtp_messages_object on smtp_messages (raw_sha256) where raw_sha256 is not null;
