-- At most one live document per invoice, enforced by the database: attaching is one statement
-- (tombstone the old document, insert the new one, point the invoice at it), and two attaches to
-- one invoice at once make the later one fail here and run again, instead of leaving two live.
drop index documents_invoice;
create unique index documents_live on documents (invoice_id) where deleted_at is null;
