-- Commands are the record (issue 14): a conflict begun from now on is a game of the `store`
-- crate's tables in this same file (`games`, `game_commands`: its setup and its commands);
-- `game_id` names it. Conflicts begun before keep `game_id` NULL and their event log in
-- `conflict_events`. No foreign key: the games tables are the games migrations' (1001 on).
ALTER TABLE conflicts ADD COLUMN game_id INTEGER;
