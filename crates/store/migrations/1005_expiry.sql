-- Issue 33 §1: finished and closed tables expire. `finished_at` is when the table was last
-- marked finished (its finishing entry, or its closing; a server marks a finished table again
-- with every later entry, so it is the time of its last entry since); a server deletes a table
-- some time after it (`facedown serve --keep-finished-seconds`). `campaign` names the campaign
-- a table belongs to (issue 35); such a table never expires. Existing finished tables count
-- from this migration.
ALTER TABLE server_tables ADD COLUMN finished_at TEXT;
ALTER TABLE server_tables ADD COLUMN campaign TEXT;
UPDATE server_tables SET finished_at = CURRENT_TIMESTAMP WHERE finished;
CREATE INDEX server_tables_expiry ON server_tables (finished_at) WHERE finished AND campaign IS NULL;

-- The highest number of a table deleted. SQLite numbers a new row after the highest number in
-- use, so a table deleted as the newest would give its number to the next one (whose links a
-- cached journal position, or an old link, would then meet); tables are numbered after this
-- one too. SQLite only: PostgreSQL's identity never gives a number twice.
CREATE TABLE server_numbers (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    deleted_up_to  BIGINT NOT NULL
);
INSERT INTO server_numbers (id, deleted_up_to) VALUES (1, 0);
