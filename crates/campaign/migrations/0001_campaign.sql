-- The first schema of a facedown campaign (Iron Triangle). One database file is one campaign.
-- Sheets, problems and conflict states are stored as JSON documents of the iron-triangle crate's
-- serde types; the columns next to them are what queries and constraints need.

CREATE TABLE campaign (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    ruleset     TEXT NOT NULL DEFAULT 'iron-triangle',
    edition     TEXT NOT NULL DEFAULT 'current' CHECK (edition IN ('current', 'earlier')),
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
INSERT INTO campaign (id) VALUES (1);

-- Player characters (kind 'pc', a campaign Sheet) and NPC sheets (kind 'npc', a Character).
-- Names are unique without regard to case: they name seats and fighters in conflicts.
CREATE TABLE characters (
    name          TEXT PRIMARY KEY COLLATE NOCASE,
    kind          TEXT NOT NULL CHECK (kind IN ('pc', 'npc')),
    sheet         TEXT NOT NULL,
    -- The problem whose outcome this character last decided (§7 tie-break); NULL: never.
    last_decided  INTEGER,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE countdowns (
    name    TEXT PRIMARY KEY COLLATE NOCASE,
    boxes   INTEGER NOT NULL CHECK (boxes BETWEEN 4 AND 8),
    marked  INTEGER NOT NULL DEFAULT 0 CHECK (marked BETWEEN 0 AND boxes)
);

-- A problem's whole state (face-down choices included) as iron_triangle::campaign::Problem.
CREATE TABLE problems (
    id       INTEGER PRIMARY KEY,
    state    TEXT NOT NULL,
    settled  INTEGER NOT NULL DEFAULT 0
);

-- A conflict: its initial state (iron_triangle::Conflict) and its event log below.
CREATE TABLE conflicts (
    id        INTEGER PRIMARY KEY,
    initial   TEXT NOT NULL,
    running   INTEGER NOT NULL DEFAULT 1,
    outcome   TEXT,
    started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE UNIQUE INDEX one_running_conflict ON conflicts (running) WHERE running = 1;

CREATE TABLE conflict_events (
    conflict_id  INTEGER NOT NULL REFERENCES conflicts (id),
    seq          INTEGER NOT NULL,
    event        TEXT NOT NULL,
    PRIMARY KEY (conflict_id, seq)
);

-- The campaign's log: every command that changed something, with what it did.
CREATE TABLE log (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    kind     TEXT NOT NULL,
    subject  TEXT NOT NULL DEFAULT '',
    detail   TEXT NOT NULL DEFAULT '{}'
);
