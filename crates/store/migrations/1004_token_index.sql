-- Issue 33: a server checks a link's token against the table's access rows before it loads the
-- table (a wrong token reads nothing more): this index answers "is this hash one of table T's
-- links" from the index alone. Hashes only, as the rows themselves. Numbered 1004 to keep step
-- with migrations_pg (1003 is PostgreSQL's leases).
CREATE INDEX server_access_token ON server_access (table_id, token_hash);
