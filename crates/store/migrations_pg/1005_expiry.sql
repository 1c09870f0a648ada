-- Issue 33 §1: finished and closed tables expire, as SQLite's 1005: `finished_at` is when the
-- table was last marked finished (a server marks a finished table again with every later
-- entry), `campaign` the campaign a table belongs to (issue 35; such a table never expires).
-- Existing finished tables count from this migration. (SQLite's 1005 also keeps the highest
-- number deleted; PostgreSQL's identity never gives a number twice.)
ALTER TABLE server_tables ADD COLUMN finished_at TIMESTAMPTZ;
ALTER TABLE server_tables ADD COLUMN campaign TEXT;
UPDATE server_tables SET finished_at = CURRENT_TIMESTAMP WHERE finished;
CREATE INDEX server_tables_expiry ON server_tables (finished_at) WHERE finished AND campaign IS NULL;
