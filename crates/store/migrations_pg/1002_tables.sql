-- A server's tables in PostgreSQL (issue 16): the same tables, columns and meaning as
-- migrations/1002_tables.sql for SQLite — each table's setup and options, who may open it, and
-- its journal (every request the table accepted, in order, as the server's JSON text). Numbered
-- as the SQLite one so that both schemas keep step; the games of 1001 are SQLite's only so far.
--
-- Here several writers (one `PgTables` per server instance) may share the database: the primary
-- key (table_id, n) of the journal is what keeps a table's order — two writers can never both
-- keep an entry at one number; the second is refused (`PersistError::Conflict`).

CREATE TABLE server_tables (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ruleset          TEXT NOT NULL,
    ruleset_version  TEXT NOT NULL,
    -- The ruleset's typed setup, as JSON text (kept exactly as given: TEXT, not JSONB).
    setup            TEXT NOT NULL,
    -- The table's options, as JSON text.
    options          TEXT NOT NULL,
    -- Whether the table was marked finished (then it is not reloaded when the server starts).
    finished         BOOLEAN NOT NULL DEFAULT FALSE,
    created          TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- One row per seat link, one for the GM link, one for the spectator link. Only the hash of a
-- link's token is kept, never the token; NULL while the link is revoked.
CREATE TABLE server_access (
    table_id    BIGINT NOT NULL REFERENCES server_tables (id),
    who         TEXT NOT NULL,
    token_hash  TEXT,
    -- The server's JSON text for who controls the seat (`null` for the GM and spectators).
    controller  TEXT NOT NULL,
    PRIMARY KEY (table_id, who)
);

-- Append-only: entries are inserted, never updated or deleted; numbered 0, 1, 2… per table.
CREATE TABLE server_journal (
    table_id  BIGINT NOT NULL REFERENCES server_tables (id),
    n         BIGINT NOT NULL CHECK (n >= 0),
    -- The server's request, as JSON text.
    entry     TEXT NOT NULL,
    PRIMARY KEY (table_id, n)
);

-- The open tables a server lists when it starts.
CREATE INDEX server_tables_open ON server_tables (id) WHERE NOT finished;
