-- A server's tables (issue 15): each table's setup and options, who may open it, and its journal
-- (every request the table accepted, in order, as the server's JSON text). Replaying the journal
-- rebuilds the table.
--
-- Portable SQL on purpose, as 1001: the PostgreSQL backend of a later issue keeps its tables in
-- the same shape (there: `id BIGINT GENERATED ALWAYS AS IDENTITY`). Rows are written by one
-- writer per database (`SqliteTables`' group-commit task).

CREATE TABLE server_tables (
    id               INTEGER PRIMARY KEY,
    ruleset          TEXT NOT NULL,
    ruleset_version  TEXT NOT NULL,
    -- The ruleset's typed setup, as JSON text.
    setup            TEXT NOT NULL,
    -- The table's options, as JSON text.
    options          TEXT NOT NULL,
    -- Whether the table was marked finished (then it is not reloaded when the server starts).
    finished         BOOLEAN NOT NULL DEFAULT FALSE,
    created          TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
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
