-- The reason of an import record as a code and its parameters (domain/intake-reasons.ts), beside
-- the English text the API has always given: the dashboard words it in the reader's language.
-- Null on rows written before, and on reasons the catalogue has no words for (the text is shown).
alter table intake_records add column reason_code text, add column reason_params jsonb;
alter table intake_history add column reason_code text, add column reason_params jsonb;
