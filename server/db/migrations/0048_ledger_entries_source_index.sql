-- The entries a visit (or another source) posted, read back for its answer and by its undo: a
-- scan of the practice's whole ledger without it (23 ms a read at 200,000 entries, issue 34).
CREATE INDEX "ledger_entries_source_idx" ON "ledger_entries" USING btree ("source_type","source_id") WHERE "ledger_entries"."source_id" is not null;