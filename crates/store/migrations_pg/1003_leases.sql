-- Leases (issue 16, part 4): several server instances may serve one database, and exactly one
-- of them runs a table's bots and decision timers — the holder of the table's lease. A holder
-- renews its lease every few seconds; a lease not renewed expires, and another instance takes
-- it over. Times are the database's clock, so the instances' clocks need not agree.
--
-- PostgreSQL only: a SQLite file has one server, which holds every lease. Not part of a table
-- (a table moved between stores leaves its lease behind), so the SQLite schema has no such
-- table and the two schemas' tables still keep step.

CREATE TABLE server_leases (
    table_id  BIGINT PRIMARY KEY REFERENCES server_tables (id),
    -- The instance holding it (a random name each server makes when it starts).
    holder    TEXT NOT NULL,
    -- When it expires unless renewed; in the past when its holder handed it over.
    expires   TIMESTAMPTZ NOT NULL
);

-- The expired leases of unfinished tables, which other instances look for.
CREATE INDEX server_leases_expires ON server_leases (expires);
